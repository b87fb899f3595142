// Timing two or more implementations of the same job against each other in one process (the DKIM,
// message-audit and mark-certificate benches).

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/**
 * Alternating rounds: each round times `reps` calls of each side in turn, the order rotating from
 * round to round so no side always runs first (or right after another); medians per call. `reps` is
 * sized from one warm call so a round lasts about `roundMs`, at most `maxReps`.
 */
export async function duel(sides, { rounds = 9, roundMs = 150, maxReps = 200 } = {}) {
  for (let i = 0; i < 3; i++) for (const fn of sides) await fn();
  const t0 = performance.now();
  await sides[0]();
  const reps = Math.max(1, Math.min(maxReps, Math.round(roundMs / Math.max(0.01, performance.now() - t0))));
  const times = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const j = (k + r) % sides.length;
      for (let i = 0; i < reps; i++) {
        const s = performance.now();
        await sides[j]();
        times[j].push(performance.now() - s);
      }
    }
  }
  return { medians: times.map(median), runs: times[0].length };
}
