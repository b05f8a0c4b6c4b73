import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WorkUnitState } from '../../work-units/work-unit.ts';
import { CONTRACTS, MODES, WORK_UNIT_KINDS } from '../../work-units/work-unit.ts';
import type { AiWorkUnitKind } from '../../ai/gateway/ports.ts';
import type { PlanAction } from '../../plans/plan.ts';
import { OPERATION_KINDS } from '../../operations/operation-units.ts';
import { type EnumCodec, actionClassCodec, contractCodec, modeCodec, riskCodec, workUnitKindCodec, workUnitStateCodec } from './enums.ts';

// Completeness of the type-only word sets is enforced by `satisfies Record<…, true>`.
const AI_KINDS = Object.keys({ ai_chat_completion: true, ai_completion: true, ai_embedding: true } satisfies Record<AiWorkUnitKind, true>);
const STATES = Object.keys({ created: true, planned: true, executed: true, failed: true } satisfies Record<WorkUnitState, true>);
const RISKS = Object.keys({ low: true, medium: true, high: true } satisfies Record<PlanAction['risk'], true>);
const CLASSES = Object.keys({ exact: true, semantic: true, operation: true } satisfies Record<PlanAction['class'], true>);

function coversEveryWord(codec: EnumCodec<string>, words: readonly string[]): void {
  for (const word of words) {
    const name = codec.fromWord(word);
    assert.ok(!name.endsWith('_UNSPECIFIED'), `"${word}" has an enum value`);
    assert.equal(codec.toWord(name), word);
  }
}

describe('protobuf enums ⇄ domain words', () => {
  test('every work unit kind, contract, mode, state, risk and action class of the domain has an enum value', () => {
    coversEveryWord(workUnitKindCodec, [...WORK_UNIT_KINDS, ...AI_KINDS, ...OPERATION_KINDS]);
    coversEveryWord(contractCodec, CONTRACTS);
    coversEveryWord(modeCodec, MODES);
    coversEveryWord(workUnitStateCodec, STATES);
    coversEveryWord(riskCodec, RISKS);
    coversEveryWord(actionClassCodec, CLASSES);
  });

  test('UNSPECIFIED and absent read as "not sent"', () => {
    assert.equal(contractCodec.toWord('CONTRACT_UNSPECIFIED'), undefined);
    assert.equal(contractCodec.toWord(0), undefined);
    assert.equal(contractCodec.toWord(undefined), undefined);
  });

  test('an enum number this build does not know is passed on for the domain to reject', () => {
    assert.equal(modeCodec.toWord(9), 9);
  });

  test('a domain word without an enum value, or null, becomes UNSPECIFIED', () => {
    assert.equal(workUnitKindCodec.fromWord('hologram'), 'WORK_UNIT_KIND_UNSPECIFIED');
    assert.equal(modeCodec.fromWord(null), 'MODE_UNSPECIFIED');
  });
});
