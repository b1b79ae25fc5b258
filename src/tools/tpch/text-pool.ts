import { RandomStream } from './random-stream.js';
import { ADJECTIVES, ADVERBS, AUXILIARIES, NOUNS, PREPOSITIONS, TERMINATORS, VERBS } from './text-pools.js';

/**
 * Comment text. Like the specification's generator, a pool of grammar sentences is built
 * once and each comment is a random slice of it, so per-row cost is one substring.
 * Sentence forms (simplified): noun phrase, verb phrase, optional prepositional phrase, terminator.
 */
export class TextPool {
  private readonly pool: string;

  constructor(sizeChars = 4 << 20, seed = 'tpch.text') {
    const r = RandomStream.named(seed);
    const parts: string[] = [];
    let len = 0;
    while (len < sizeChars) {
      const s = sentence(r);
      parts.push(s);
      len += s.length + 1;
    }
    this.pool = parts.join(' ');
  }

  /** A comment whose length is uniform in [minLen, maxLen]. */
  text(r: RandomStream, minLen: number, maxLen: number): string {
    const len = r.int(minLen, maxLen);
    const start = r.int(0, this.pool.length - len - 1);
    return this.pool.substring(start, start + len);
  }
}

function nounPhrase(r: RandomStream): string {
  switch (r.int(0, 3)) {
    case 0: return r.pick(NOUNS);
    case 1: return `${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`;
    case 2: return `${r.pick(ADJECTIVES)}, ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`;
    default: return `${r.pick(ADVERBS)} ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`;
  }
}

function verbPhrase(r: RandomStream): string {
  switch (r.int(0, 3)) {
    case 0: return r.pick(VERBS);
    case 1: return `${r.pick(AUXILIARIES)} ${r.pick(VERBS)}`;
    case 2: return `${r.pick(VERBS)} ${r.pick(ADVERBS)}`;
    default: return `${r.pick(AUXILIARIES)} ${r.pick(VERBS)} ${r.pick(ADVERBS)}`;
  }
}

function sentence(r: RandomStream): string {
  const np = nounPhrase(r);
  const vp = verbPhrase(r);
  const term = r.pick(TERMINATORS);
  switch (r.int(0, 4)) {
    case 0: return `${np} ${vp}${term}`;
    case 1: return `${np} ${vp} ${r.pick(PREPOSITIONS)} the ${nounPhrase(r)}${term}`;
    case 2: return `${np} ${vp} ${nounPhrase(r)}${term}`;
    case 3: return `${np} ${r.pick(PREPOSITIONS)} the ${nounPhrase(r)} ${vp} ${r.pick(PREPOSITIONS)} the ${nounPhrase(r)}${term}`;
    default: return `${np} ${vp} ${r.pick(PREPOSITIONS)} the ${nounPhrase(r)}${term}`;
  }
}
