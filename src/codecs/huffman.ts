/** Length-limited Huffman code lengths, shared by the encoders that write Huffman codes (gdeflate, bzip2). */
/**
 * Code lengths of at most `limit` bits for `freq`, by Huffman's construction (two queues over the
 * symbols in order of frequency); frequencies are halved until the tree is shallow enough. A code
 * gets at least two codewords (a complete code, which every decoder takes). Symbols of frequency 0
 * get no codeword; a caller whose format needs one for every symbol (bzip2) passes at least 1 each.
 */
export function huffmanLengths(freq: Int32Array, limit: number): Uint8Array {
  const f = Int32Array.from(freq);
  const used = [...f.keys()].filter((s) => f[s] > 0);
  for (let s = 0; used.length < 2; s++) if (f[s] === 0) used.push((f[s] = 1, s));
  const m = used.length;
  for (;;) {
    used.sort((a, b) => f[a] - f[b] || a - b);
    const weight = new Float64Array(2 * m - 1);
    const parent = new Int32Array(2 * m - 1);
    used.forEach((s, i) => (weight[i] = f[s]));
    let leaf = 0;
    let node = m;
    const lighter = () => (leaf < m && (node >= made || weight[leaf] <= weight[node]) ? leaf++ : node++);
    let made = m;
    for (; made < 2 * m - 1; made++) {
      const a = lighter();
      const b = lighter();
      weight[made] = weight[a] + weight[b];
      parent[a] = parent[b] = made;
    }
    // A parent comes after its children: depths from the root (the last node) down.
    const depth = new Int32Array(2 * m - 1);
    for (let i = 2 * m - 3; i >= 0; i--) depth[i] = depth[parent[i]] + 1;
    if (depth.subarray(0, m).every((d) => d <= limit)) {
      const lens = new Uint8Array(f.length);
      used.forEach((s, i) => (lens[s] = depth[i]));
      return lens;
    }
    for (const s of used) f[s] = (f[s] + 1) >> 1;
  }
}
