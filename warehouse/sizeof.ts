/**
 * A rough estimate of the bytes a JS value holds (V8 layout varies; this errs high), used to
 * bound memo caches by size rather than entry count. Walks objects, arrays, Maps and Sets once;
 * shared references are counted once.
 */
export function approxBytes(value: unknown): number {
  const seen = new Set<object>();
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    switch (typeof v) {
      case 'string':
        total += 16 + v.length * 2;
        break;
      case 'number':
      case 'boolean':
      case 'bigint':
        total += 8;
        break;
      case 'object': {
        if (v === null || seen.has(v)) {
          total += 8;
          break;
        }
        seen.add(v);
        if (Buffer.isBuffer(v)) total += 64 + v.length;
        else if (v instanceof Map) {
          total += 64 + v.size * 24;
          for (const [k, x] of v) stack.push(k, x);
        } else if (v instanceof Set) {
          total += 64 + v.size * 16;
          for (const x of v) stack.push(x);
        } else if (Array.isArray(v)) {
          total += 32 + v.length * 8;
          for (const x of v) stack.push(x);
        } else {
          const keys = Object.keys(v);
          total += 32 + keys.length * 16;
          for (const k of keys) stack.push((v as Record<string, unknown>)[k]);
        }
        break;
      }
      default:
        total += 8;
    }
  }
  return total;
}
