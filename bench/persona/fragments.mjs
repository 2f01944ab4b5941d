// What a persona answer must never contain: a heading or label on its own, a
// list marker fragment, a label with nothing after it, an arrow, an
// "Imported:" prefix, a question quoted from the knowledge base, a timeline
// row, or a sentence cut mid-way. Checked on every answer of the graded set
// (tests/node/persona-answers.test.mjs) and reported by bench/persona/eval.mjs.

// The quoted parts of an answer: the text before each citation mark, back to
// the previous mark or block start, with the persona's frame removed where a
// colon frame precedes it ("Under the hood: ").
function quotedParts(answer) {
  const parts = [];
  for (const block of answer.split(/\n\n+/)) {
    let from = 0;
    for (const m of block.matchAll(/ ?\[\d+\]/g)) {
      parts.push(block.slice(from, m.index).trim());
      from = m.index + m[0].length;
    }
  }
  return parts.filter(Boolean);
}

const TERMINAL = /[.!?。！？…"”')）]$/u;
const TIMELINE_ROW = /^(~|c\.\s?)?\d{4}s?(\s?[–-]\s?\d{2,4})?\s+\p{Lu}/u;
const LIST_MARKER = /\s([-*•]|\d{1,2}[.)])$|^([-*•]|\d{1,2}[.)])\s/u;

// Returns the problems found in one answer (empty: clean). headings: the
// knowledge base's heading texts, folded to lower case.
export function fragmentsOf(answer, headings = new Set()) {
  const problems = [];
  if (answer.includes('→')) problems.push('arrow');
  if (/Imported:/i.test(answer)) problems.push('"Imported:"');
  for (const raw of quotedParts(answer)) {
    // The part after the persona's frame: the frame is the text up to the last ": " before a capital.
    const part = raw.replace(/^.*?[:：]\s*(?=\S)/su, (m) => (m.length < 48 ? '' : m));
    if (!part) { problems.push(`empty quote after "${raw}"`); continue; }
    if (/[:：]$/u.test(part)) problems.push(`label with nothing after it: "${part}"`);
    else if (!TERMINAL.test(part) && part.length > 0) problems.push(`cut mid-way: "${part.slice(-60)}"`);
    if (/[?？]$/u.test(part)) problems.push(`a question quoted: "${part}"`);
    if (headings.has(part.toLowerCase().replace(/[.。]$/u, ''))) problems.push(`a heading: "${part}"`);
    if (TIMELINE_ROW.test(part)) problems.push(`a timeline row: "${part.slice(0, 60)}"`);
    if (LIST_MARKER.test(part)) problems.push(`a list marker: "${part.slice(0, 60)}"`);
    if (part.includes('…')) problems.push(`cut with an ellipsis: "${part.slice(-60)}"`);
  }
  return problems;
}

// Every heading text of a collection's chunks, for fragmentsOf.
export function headingsOf(chunks) {
  const out = new Set();
  for (const c of chunks) for (const t of c.title) out.add(t.toLowerCase().trim());
  return out;
}
