/** Time as the engine sees it; injected so calls can be replayed. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
