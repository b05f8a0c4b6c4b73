/**
 * Protobuf enums ⇄ the words REST and the domain use. The rule is mechanical:
 * `<PREFIX>_<WORD>` ⇄ `word` in lowercase (`CONTRACT_EXACT_BYTES` ⇄
 * `exact_bytes`); `<PREFIX>_UNSPECIFIED` means the field was not sent.
 *
 * Inbound, a value this build does not know (a newer client's number) is
 * passed to the domain as it is, so the domain's validation rejects it with
 * the usual error instead of the adapter guessing. Outbound, a domain word
 * without an enum value maps to UNSPECIFIED; a unit test keeps every word the
 * domain defines covered.
 */
import { ActionClass } from '../generated/svc/v1/ActionClass.ts';
import { Contract } from '../generated/svc/v1/Contract.ts';
import { Mode } from '../generated/svc/v1/Mode.ts';
import { Risk } from '../generated/svc/v1/Risk.ts';
import { WorkUnitKind } from '../generated/svc/v1/WorkUnitKind.ts';
import { WorkUnitState } from '../generated/svc/v1/WorkUnitState.ts';

export interface EnumCodec<Name extends string> {
  /** The enum's value names, as generated from the proto. */
  readonly names: readonly Name[];
  /** Wire value → domain word; `undefined` for UNSPECIFIED or absent. */
  toWord(wire: Name | number | undefined): string | number | undefined;
  /** Domain word → wire value; UNSPECIFIED for null, absent or unknown words. */
  fromWord(word: string | null | undefined): Name;
}

function enumCodec<const Values extends Record<string, string>>(values: Values, prefix: string): EnumCodec<Values[keyof Values]> {
  type Name = Values[keyof Values];
  const names = Object.values(values) as Name[];
  const unspecified = `${prefix}_UNSPECIFIED` as Name;
  if (!names.includes(unspecified)) throw new Error(`enum ${prefix} has no ${unspecified} value`);
  const byWord = new Map<string, Name>(names.filter((n) => n !== unspecified).map((n) => [n.slice(prefix.length + 1).toLowerCase(), n]));
  return {
    names,
    toWord(wire) {
      if (wire === undefined || wire === unspecified || wire === 0) return undefined;
      if (typeof wire === 'number') return wire;
      return wire.startsWith(`${prefix}_`) ? wire.slice(prefix.length + 1).toLowerCase() : wire;
    },
    fromWord(word) {
      return (word != null && byWord.get(word)) || unspecified;
    },
  };
}

export const workUnitKindCodec = enumCodec(WorkUnitKind, 'WORK_UNIT_KIND');
export const contractCodec = enumCodec(Contract, 'CONTRACT');
export const modeCodec = enumCodec(Mode, 'MODE');
export const riskCodec = enumCodec(Risk, 'RISK');
export const actionClassCodec = enumCodec(ActionClass, 'ACTION_CLASS');
export const workUnitStateCodec = enumCodec(WorkUnitState, 'WORK_UNIT_STATE');
