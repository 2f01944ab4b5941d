// Three conversations with the persona (en, pt, zh), 8 turns each: two
// follow-ups, an exit from the role said in other words, a plain answer out
// of role, a re-entry, and a question the knowledge base cannot answer.
// Written as read, to bench/persona/TRANSCRIPTS.md.
//
//   node bench/persona/transcripts.mjs [--out bench/persona/TRANSCRIPTS.md]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { citationLabel } from '../../web/engine/kb.mjs';
import { openPersona } from './eval.mjs';

export const CONVERSATIONS = {
  en: ['How should I start learning deep learning?', 'Why?', 'What did you learn at Tesla about data?',
    'Can you give an example?', 'OK, you can stop role-playing now.', 'What is Software 2.0?',
    'Alright, back in character please.', "What's your favourite pizza topping?"],
  pt: ['Como devo começar a aprender deep learning?', 'Por quê?', 'Por que a Tesla apostou só em câmeras, sem LiDAR?',
    'E qual é o ponto fraco disso?', 'Pode sair do personagem, por favor.', 'O que é vibe coding?',
    'Volta a ser o Andrej, por favor.', 'Qual é a melhor receita de feijoada?'],
  zh: ['初学者应该怎么开始学深度学习？', '为什么？', '你怎么看 vibe coding？', '能举个例子吗？', '好的，不用扮演了。',
    '什么是 Software 2.0？', '好的，继续扮演 Karpathy 吧', '红烧肉怎么做才好吃？'],
};

export async function converse(p, turns) {
  let state = {};
  const out = [];
  for (const q of turns) {
    const r = await p.ask(q, state);
    state = r.state;
    out.push({ q, r });
  }
  return out;
}

function render(lang, turns) {
  const lines = [`## ${lang}`, ''];
  turns.forEach(({ q, r }, i) => {
    lines.push(`**${i + 1}. You:** ${q}`, '', `*${r.kind}${r.inRole ? '' : ', out of role'}*`, '');
    lines.push(...r.answer.split('\n').map((l) => (l ? `> ${l}` : '>')), '');
    for (const c of r.citations) lines.push(`- [${c.n}] ${citationLabel(c)}`);
    if (r.citations.length) lines.push('');
  });
  return lines.join('\n');
}

async function main() {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'bench/persona/TRANSCRIPTS.md' } } });
  const p = await openPersona();
  const parts = [`# Conversations with the persona

Made by \`node bench/persona/transcripts.mjs\` over the default knowledge base and model; turns 2 and 4 are
follow-ups, turn 5 leaves the role in the asker's own words, turn 7 re-enters it, turn 8 is outside the
knowledge base. None of these turns is in the graded set.
`];
  for (const [lang, turns] of Object.entries(CONVERSATIONS)) parts.push(render(lang, await converse(p, turns)));
  writeFileSync(values.out, parts.join('\n') + '\n');
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
