/**
 * Deterministic safetensors checkpoints of a small transformer-shaped model
 * for the training adapter tests and `npm run bench -- adapters`: embeddings
 * and the lower layers stay frozen across checkpoints (fine-tuning), the upper
 * layers and the head change every step.
 */
import { mulberry32 } from '../helpers/prng.ts';

export interface SafetensorsTensor {
  name: string;
  dtype: string;
  shape: number[];
  data: Uint8Array;
}

export function writeSafetensors(tensors: SafetensorsTensor[], metadata?: Record<string, string>): Buffer {
  const header: Record<string, unknown> = metadata ? { __metadata__: metadata } : {};
  let offset = 0;
  for (const t of tensors) {
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8); // the format pads the header to 8 bytes
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([len, Buffer.from(json), ...tensors.map((t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))]);
}

export interface ModelShape {
  vocab: number;
  hidden: number;
  layers: number;
  /** Layers from the bottom that never change (plus the embeddings). */
  frozenLayers: number;
}

function f32(seedKey: string, count: number): Uint8Array {
  let seed = 0;
  for (const c of seedKey) seed = (seed * 31 + c.charCodeAt(0)) >>> 0;
  const rand = mulberry32(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (rand() - 0.5) * 0.04;
  return new Uint8Array(out.buffer);
}

/** The tensors of checkpoint `step`: frozen tensors are seeded without the step, trained ones with it. */
export function checkpoint(shape: ModelShape, step: number): Buffer {
  const h = shape.hidden;
  const tensors: SafetensorsTensor[] = [{ name: 'embed.weight', dtype: 'F32', shape: [shape.vocab, h], data: f32('embed', shape.vocab * h) }];
  for (let l = 0; l < shape.layers; l++) {
    const frozen = l < shape.frozenLayers;
    const key = (part: string) => (frozen ? `l${l}.${part}` : `l${l}.${part}@${step}`);
    tensors.push({ name: `layers.${l}.attn.qkv.weight`, dtype: 'F32', shape: [3 * h, h], data: f32(key('qkv'), 3 * h * h) });
    tensors.push({ name: `layers.${l}.attn.out.weight`, dtype: 'F32', shape: [h, h], data: f32(key('out'), h * h) });
    tensors.push({ name: `layers.${l}.mlp.up.weight`, dtype: 'F32', shape: [4 * h, h], data: f32(key('up'), 4 * h * h) });
    tensors.push({ name: `layers.${l}.mlp.down.weight`, dtype: 'F32', shape: [h, 4 * h], data: f32(key('down'), 4 * h * h) });
    tensors.push({ name: `layers.${l}.norm.weight`, dtype: 'F32', shape: [h], data: f32(key('norm'), h) });
  }
  tensors.push({ name: 'head.weight', dtype: 'F32', shape: [shape.vocab, h], data: f32(`head@${step}`, shape.vocab * h) });
  return writeSafetensors(tensors, { step: String(step), format: 'pt' });
}
