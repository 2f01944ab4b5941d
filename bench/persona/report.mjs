// EVAL.md for the persona: the graded set's numbers per language and kind,
// held-out half first, with the "before" run beside them when given.
import { LANGUAGES } from './set.mjs';

const KINDS = [
  ['answerable', 'answered with the fact asked for'],
  ['answerable_same', '... the fact written in the asker\'s language'],
  ['answerable_cross', '... the fact only in another language\'s passage'],
  ['followups', 'follow-ups that continue the topic'],
  ['out_of_scope', 'out-of-scope questions not answered'],
  ['commands', 'role commands (natural phrasings, question traps)'],
  ['fragment_free', 'items whose answers hold no fragment'],
];

const cell = (x) => (x === null || x === undefined ? '-' : x.toFixed(2));
const value = (row, kind) => (kind === 'fragment_free' ? row.fragment_free : row[kind]?.pass);

function table(report, before, split) {
  const langs = [...LANGUAGES, 'all'];
  const lines = [`| | ${langs.join(' | ')} |`, `|---|${langs.map(() => '---').join('|')}|`];
  for (const [kind, label] of KINDS) {
    const cells = langs.map((l) => {
      const now = value(report.summary[split][l], kind);
      const n = kind === 'fragment_free' ? '' : ` (${report.summary[split][l][kind].n})`;
      // A "before" run made before a row existed has nothing to show beside it.
      const was = before?.summary?.[split]?.[l] ? value(before.summary[split][l], kind) : undefined;
      return was === undefined ? `${cell(now)}${n}` : `${cell(now)} (was ${cell(was)})${n}`;
    });
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function renderMarkdown(report, before) {
  return `# Persona answers on the graded set

Made by \`node bench/persona/eval.mjs --before bench/persona/results/before.json --json bench/persona/results/after.json --markdown bench/persona/EVAL.md\`.
The set is bench/persona/set-{en,pt,zh}.json; odd ids are the development half, even ids are held out.
An answer counts when it is an answer (not "I don't know") and contains every fact the item lists
(any of the fact's alternatives). A follow-up counts when the second turn's answer contains the
continuation's facts. Fragments are checked by bench/persona/fragments.mjs.
"The fact written in the asker's language": every fact the item lists is in a passage of the question's
language; "only in another language's passage": some fact is written only in another language's passages
(the knowledge base's languages: passages in en, pt and zh).${before ? `\n"was": ${before.label}.` : ''}

## Held-out half

${table(report, before, 'held-out')}

## Development half

${table(report, before, 'dev')}

## Whole set

${table(report, before, 'all')}
`;
}
