// The site author's script, type-checked against web/index.d.ts by
// `tsc --noEmit -p tests/types` (the test command runs it).
import { create, VesperError, type Reply, type SearchResult } from 'vesper';

async function main(): Promise<void> {
  const v = await create({ pack: 'kb.pack', persona: 'persona.json', onFallback: (f) => console.warn(f.reason) });
  v.addEventListener('progress', (ev) => console.log(ev.detail.done, ev.detail.total));
  const found: SearchResult = await v.search('Why cameras?', { k: 5, threshold: 0.3 });
  for (const r of found.results) console.log(r.score.toFixed(3), r.title.join(' › '), r.text.slice(0, 80));
  let reply: Reply = await v.ask('Why cameras?');
  reply = await v.ask('why?', { conversation: reply.conversation });
  console.log(reply.answer, reply.citations.map((c) => `[${c.n}] ${c.source}`));
  await v.add('notes', ['A first note.', { source: 'b.md', text: 'A second one.' }]);
  const bytes: Uint8Array = v.save('notes');
  console.log(bytes.length, v.databases, v.model?.id ?? 'lexical');
  await v.dispose();
}

main().catch((err: unknown) => {
  if (err instanceof VesperError) console.error(err.code, err.message);
  else throw err;
});
