/**
 * One line of a corpus JSONL file: a registered source with its chunks,
 * rights holder, royalty terms and freshness metadata. The format is
 * documented in docs/attr-corpus.md; this schema is its single definition.
 */
import Type, { type Static } from 'typebox';
import { Sha256Hex } from '../schemas/common.ts';

export const CORPUS_RECORD_SCHEMA_ID = 'attr-corpus-source/v1';

const Timestamp = Type.Union([
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2}))?$' }),
  Type.Null(),
]);

export const CorpusChunkSchema = Type.Object(
  {
    chunk_id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$' }),
    text: Type.String({ minLength: 1, maxLength: 20000 }),
  },
  { additionalProperties: false },
);

export const CorpusRecordSchema = Type.Object(
  {
    schema: Type.Literal(CORPUS_RECORD_SCHEMA_ID),
    source_id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' }),
    work_id: Type.String({ minLength: 1, maxLength: 128 }),
    title: Type.String({ minLength: 1, maxLength: 500 }),
    // http(s) only: a footer link is shown to readers, so javascript:, data: or file: URIs are refused at load.
    uri: Type.String({ pattern: '^https?://[^\\s/?#]+[^\\s]*$', maxLength: 2048 }),
    rights_holder: Type.Union([
      Type.Object({ id: Type.String({ minLength: 1 }), name: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      Type.Null(),
    ]),
    royalty_terms: Type.Object(
      { license: Type.String({ minLength: 1 }), royalty_eligible: Type.Boolean() },
      { additionalProperties: false },
    ),
    published_at: Timestamp,
    updated_at: Timestamp,
    chunks: Type.Array(CorpusChunkSchema, { minItems: 1, maxItems: 1000 }),
    content_sha256: Sha256Hex,
  },
  { additionalProperties: false },
);

export type CorpusRecord = Static<typeof CorpusRecordSchema>;
export type CorpusChunk = Static<typeof CorpusChunkSchema>;
