// The site author's script, run unchanged in Node (tests/node/api-create.test.mjs)
// and in the browser (tests/browser/api-create.test.mjs): both must give the
// same summary. `create` is the package's entry; pack and persona are a path
// in Node and a URL in the browser.
export async function run(create, { pack, persona }) {
  const v = await create({ pack, persona });
  const found = await v.search('Why did Tesla bet on cameras instead of LiDAR?');
  const reply = await v.ask('Why did Tesla bet on cameras instead of LiDAR?');
  await v.add('notes', ['Zebra stripes confuse biting flies.', 'Albatrosses glide for hours without flapping.']);
  const notes = await v.search('albatross glide', { database: 'notes', threshold: 0 });
  const saved = v.save('notes');
  await v.dispose();
  return {
    model: v.model?.id ?? null,
    answerable: found.answerable,
    results: found.results.map((r) => [r.id, Number(r.score.toFixed(5))]),
    reply: { kind: reply.kind, answer: reply.answer, citations: reply.citations.map((c) => c.id) },
    notes: notes.results.concat(notes.nearMisses).map((r) => r.text),
    savedBytes: saved.length,
  };
}
