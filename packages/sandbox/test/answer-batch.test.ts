import { describe, expect, it } from 'vitest';
import { answerThisTurn } from '../src/answer-batch.js';

describe('answerThisTurn', () => {
  it('writes the answers of one turn together, after the turn, in arrival order', async () => {
    const written: string[] = [];
    answerThisTurn(() => written.push('a'));
    answerThisTurn(() => written.push('b'));
    // Nothing is written inside the turn that produced the answers.
    await Promise.resolve();
    expect(written).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['a', 'b']);
  });

  it('an answer produced while a batch is written goes out with the next turn', async () => {
    const written: string[] = [];
    answerThisTurn(() => {
      written.push('first');
      answerThisTurn(() => written.push('second'));
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['first']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['first', 'second']);
  });
});
