/** Typo-tolerant text matching shared by the searches of several areas (payer names, drug names). */

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions), capped. */
export function editDistance(a: string, b: string, cap = 3): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const cols = b.length + 1;
  // Three rows of the table (two back, for a transposition), reused across calls: a search
  // compares a typed word with thousands of candidates.
  if (rows[0]!.length < cols) for (let k = 0; k < 3; k++) rows[k] = new Int32Array(cols * 2);
  let back2 = rows[0]!;
  let back = rows[1]!;
  let cur = rows[2]!;
  for (let j = 0; j < cols; j++) back[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = Infinity;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j < cols; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = Math.min(back[j]! + 1, cur[j - 1]! + 1, back[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) v = Math.min(v, back2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > cap) return cap + 1;
    const free = back2;
    back2 = back;
    back = cur;
    cur = free;
  }
  return back[b.length]!;
}

/** editDistance's rows (grown to the longest word compared). */
const rows: Int32Array[] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];
