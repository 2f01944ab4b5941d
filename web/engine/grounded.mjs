// The persona speaks through a generator (web/engine/generator.mjs), grounded
// in the passages its extractive answer chose. The extractive reply comes
// first and decides: a command, an out-of-scope question or "I don't know"
// is never generated; a reply that cites nothing it was given, uses a word
// the persona never uses, or answers in another language than the question
// falls back to the extractive answer, which stays the offline floor.
//
//   const reply = await speak({ engine, generator, name, question, conversation, onText });
//   reply.generated  // true, or false with reply.fallback saying why

// Languages named in the instructions (the model reads English instructions best).
const LANGUAGE_NAMES = { en: 'English', pt: 'Portuguese', zh: 'Chinese' };
// A passage is quoted to the model up to this many characters: three of them
// and the instructions stay well inside a small model's context.
const PASSAGE_CHARS = 1200;
// Detected language is trusted from this many characters of reply on.
const MIN_DETECT_CHARS = 40;
export const GENERATED_DEFAULTS = { maxTokens: 320, temperature: 0, topP: 0.9, seed: 0 };
// A prompt leaves at least this many tokens of context for the reply.
const MIN_REPLY_TOKENS = 64;

const inLanguage = (byLanguage, language) => (byLanguage ? byLanguage[language] ?? byLanguage.en ?? '' : '');

// The chat turns for `question` over `passages` ([{ title: [...], text }],
// numbered from 1 in order): the persona's identity, voice, answer structure
// and banned words as instructions, the passages and the question as the
// user's message.
export function groundedTurns({ personaFile: p, language, question, passages, earlier = '' }) {
  const name = p.name ?? 'the persona';
  const banned = [...new Set([...(p.banned_words?.[language] ?? []), ...(p.banned_words?.en ?? [])])];
  const structure = language === 'zh' && p.structure_zh ? p.structure_zh : p.structure;
  const system = [
    `You are ${name}. ${inLanguage(p.identity, language)}`.trim(),
    `Speak in the first person, as ${name}, in ${LANGUAGE_NAMES[language] ?? language}.`,
    'Answer only from the numbered passages. Cite every passage you use as [n]. If they do not answer the question, say that you do not know.',
    Array.isArray(structure) && structure.length ? `Where the passages support it, answer in this order: ${structure.join('; ')}.` : '',
    banned.length ? `Never use these words: ${banned.join(', ')}.` : '',
  ].filter(Boolean).join('\n');
  const quoted = passages.map((c, i) => {
    const trail = (c.title ?? []).filter(Boolean).join(' > ');
    const text = c.text.length > PASSAGE_CHARS ? `${c.text.slice(0, PASSAGE_CHARS)}…` : c.text;
    return `[${i + 1}] ${trail ? `${trail}: ` : ''}${text}`;
  });
  return [
    { role: 'system', text: system },
    // A follow-up ("Is there any downside to that?") reads with what it follows.
    { role: 'user', text: `Passages:\n${quoted.join('\n\n')}\n\n${earlier ? `Earlier question: ${earlier}\n` : ''}Question: ${question}` },
  ];
}

// The checks a generated reply passes before anyone reads it. Citations of a
// passage that was not given ([7] of 3) are removed; then the reply needs a
// citation, no banned word, and the question's language. Returns
// { ok, text, cited: [n...], reason }.
export function checkGenerated(text, { passages, language, usesBannedWord, detectLanguage }) {
  const kept = new Set();
  const cleaned = text
    .replace(/\s*\[(\d+)\]/g, (all, n) => {
      const k = Number(n);
      if (k >= 1 && k <= passages) {
        kept.add(k);
        return all;
      }
      return '';
    })
    .trim();
  const fail = (reason) => ({ ok: false, text: cleaned, cited: [...kept], reason });
  if (!cleaned) return fail('empty');
  if (!kept.size) return fail('no citation of the given passages');
  if (usesBannedWord(cleaned)) return fail('a word the persona never uses');
  const detected = cleaned.length >= MIN_DETECT_CHARS ? detectLanguage(cleaned) : language;
  if (detected in LANGUAGE_NAMES && detected !== language) return fail(`answered in ${LANGUAGE_NAMES[detected]}, asked in ${LANGUAGE_NAMES[language] ?? language}`);
  return { ok: true, text: cleaned, cited: [...kept].sort((a, b) => a - b), reason: null };
}

// One turn: the extractive reply, then, where it answers, the generator's
// over its cited passages. Resolves to the extractive reply's fields plus
// { generated, generator, fallback, stopped, tokens, seconds }; `answer` is the generated text
// (after the persona's one-time disclaimer, as in the extractive reply) or
// the extractive answer. onText streams the generation as it comes (a
// fallback replaces what was streamed: `generated` says which was kept);
// onToken(id) hears each token.
export async function speak({ engine, name, question, conversation = {}, threshold = null, ...rest }) {
  const reply = await engine.ask(name, question, { conversation, threshold });
  return speakReply({ engine, name, question, reply, earlier: conversation?.topic ?? '', ...rest });
}

// The same for an extractive reply already given (the page shows it while
// the generator speaks); earlier: the conversation's topic before it.
export async function speakReply({ engine, generator, name, question, reply, earlier = '', options = {}, onText = null, onToken = null, signal = null }) {
  const base = { ...reply, generated: false, generator: generator.info.id, fallback: null, stopped: null };
  if (reply.kind !== 'answer' || !reply.citations.length) return { ...base, fallback: `not generated: the persona's reply is '${reply.kind}'` };
  // Out of the role (the reader asked the persona to stop), nobody speaks in its voice.
  if (reply.inRole === false) return { ...base, fallback: 'not generated: out of the role' };
  const db = engine.require(name);
  const cited = reply.citations.map((c) => ({ c, chunk: db.chunk(c.id) })).filter((x) => x.chunk);
  const passages = cited.map((x) => x.chunk);
  const settings = { ...GENERATED_DEFAULTS, ...options };
  // The passages that fit the model's context with room for a reply: the last
  // cited first to go (the persona's citations come best first).
  let prompt = null;
  while (passages.length) {
    prompt = generator.chatPrompt(groundedTurns({ personaFile: engine.personaFile, language: reply.language, question, passages, earlier: typeof earlier === 'string' ? earlier : '' }));
    if (prompt.length + Math.min(settings.maxTokens, MIN_REPLY_TOKENS) <= generator.info.contextLength) break;
    passages.pop();
  }
  if (!passages.length) return { ...base, fallback: `the passages do not fit ${generator.info.id}'s context of ${generator.info.contextLength} tokens` };
  const out = await generator.generate(prompt, { ...settings, signal, onText, onToken });
  const check = checkGenerated(out.text, {
    passages: passages.length, language: reply.language,
    usesBannedWord: (t) => engine.persona.usesBannedWord(t), detectLanguage: (t) => engine.core.detectLanguage(t),
  });
  const speed = { tokens: out.ids.length, seconds: out.seconds };
  if (!check.ok) return { ...base, ...speed, fallback: check.reason, stopped: out.stopped };
  const disclaimer = reply.disclaimer ? inLanguage(engine.personaFile.disclaimer, reply.language) : '';
  const answer = disclaimer ? `${disclaimer}\n\n${check.text}` : check.text;
  // Numbered as the prompt numbered them, which is how the reply cites them.
  const citations = cited.map((x, i) => ({ ...x.c, n: i + 1 })).filter((c) => check.cited.includes(c.n));
  return { ...base, ...speed, answer, citations, generated: true, stopped: out.stopped };
}
