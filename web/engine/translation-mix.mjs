// A text's vector with its dictionary translation mixed in (issue 32): a
// static model's vector is a weighted sum of its pieces, and the default
// model aligns everyday words across languages poorly (little Portuguese and
// Chinese everyday text to learn from), while its lexicon translates them
// exactly. So a text in one language is also embedded as the lexicon's word
// for word translation into each other language the mix names, and those
// vectors are added, each at `weight`, to the text's own before normalising:
// a Portuguese passage and an English question then meet in both languages'
// pieces. Every client embeds through the engine's embedder, so passages and
// queries are mixed alike. Measured and chosen in bench/quality/notes.md.

// The manifest's "translationMix" ({ weight, languages }, checked by
// validateManifest), or null when the model has none.
export function translationMixOf(manifest) {
  const mix = manifest?.translationMix;
  return mix ? { weight: mix.weight, languages: [...new Set(mix.languages)] } : null;
}

// Scripts written without spaces between words (the lexicon's Chinese).
const UNSPACED = new Set(['zh', 'ja']);

// The texts to embed beside `texts`: { index, text } for each text and each
// other language of the mix its lexicon translation has words in (the first
// translation of each word: the lexicon orders them best first). languageOf(i)
// gives a text's language (a passage's own, else detected); a text in a
// language the mix does not name is embedded as it is. Where a sharded
// lexicon lacks parts, every text is still looked up and one
// 'missing_lexicon' error names the shards of all of them, so a batch of
// passages costs one round of fetching, not one per text (run it under
// embedder.withParts).
export function translationsOf(lexicon, mix, texts, languageOf) {
  const out = [];
  const missing = new Set();
  let first = null;
  texts.forEach((text, index) => {
    const from = languageOf(index);
    if (!mix.languages.includes(from)) return;
    for (const to of mix.languages) {
      if (to === from) continue;
      let words;
      try {
        words = lexicon.translateFirst(text, from, to, UNSPACED.has(to) ? '' : ' ');
      } catch (err) {
        const shards = err?.code === 'missing_lexicon' ? err.shards ?? err.cause?.shards : null;
        if (!shards) throw err;
        first ??= err;
        for (const s of shards) missing.add(s);
        continue;
      }
      if (words) out.push({ index, text: words });
    }
  });
  if (first) throw Object.assign(first, { shards: [...missing] });
  return out;
}

// vectors (n x dims, unit rows) += weight x each translation's unit vector
// (extra: m x dims, row j belonging to text owners[j]), rows renormalised.
export function mixInto(vectors, dims, extra, owners, weight) {
  const touched = new Set();
  owners.forEach((owner, j) => {
    const row = vectors.subarray(owner * dims, (owner + 1) * dims);
    const add = extra.subarray(j * dims, (j + 1) * dims);
    for (let k = 0; k < dims; k++) row[k] += weight * add[k];
    touched.add(owner);
  });
  for (const owner of touched) {
    const row = vectors.subarray(owner * dims, (owner + 1) * dims);
    let norm = 0;
    for (let k = 0; k < dims; k++) norm += row[k] * row[k];
    norm = Math.sqrt(norm);
    if (norm > 0) for (let k = 0; k < dims; k++) row[k] /= norm;
  }
}
