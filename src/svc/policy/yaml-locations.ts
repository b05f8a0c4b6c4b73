/**
 * Maps a JSON pointer (as reported by schema validation) back to the line and
 * column in the YAML or JSON source it came from, so `svc policy validate`
 * can say "line 14" instead of "/policies/3/match/action".
 */
import { type Document, isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from 'yaml';

export interface SourcePosition {
  line: number;
  column: number;
}

/** Splits a JSON pointer (`/a/0/b~1c`) into its unescaped segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

interface Located {
  node: Node;
  /** The key node when the last segment addressed a map entry; errors about the entry point at the key. */
  key: Node | undefined;
}

function step(node: Node, segment: string): Located | undefined {
  if (isMap(node)) {
    for (const item of node.items) {
      if (!isPair(item)) continue;
      const keyNode = item.key as Node | null;
      const keyValue = isScalar(keyNode) ? String(keyNode.value) : undefined;
      if (keyValue === segment) {
        const value = item.value as Node | null;
        return { node: value ?? (keyNode as Node), key: keyNode ?? undefined };
      }
    }
    return undefined;
  }
  if (isSeq(node)) {
    const index = Number(segment);
    const child = Number.isInteger(index) ? (node.items[index] as Node | undefined) : undefined;
    return child ? { node: child, key: undefined } : undefined;
  }
  return undefined;
}

/**
 * The position of the deepest node along `pointer` that exists. A missing
 * property therefore reports the line of the object that lacks it; with
 * `preferKey`, an existing map entry reports its key (for "unknown field").
 */
export function locatePointer(
  doc: Document,
  counter: LineCounter,
  pointer: string,
  options: { preferKey?: boolean } = {},
): SourcePosition {
  let current: Located | undefined = doc.contents ? { node: doc.contents as Node, key: undefined } : undefined;
  for (const segment of pointerSegments(pointer)) {
    if (!current) break;
    const next = step(current.node, segment);
    if (!next) break;
    current = next;
  }
  const target = current ? (options.preferKey && current.key ? current.key : current.node) : undefined;
  const offset = target?.range?.[0] ?? 0;
  const pos = counter.linePos(offset);
  return { line: pos.line, column: pos.col };
}
