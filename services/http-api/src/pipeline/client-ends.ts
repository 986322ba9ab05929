import type { Socket } from "node:net";

/** The requests still being worked on for one connection. */
export class RunningRequests {
  count = 0;
  /** One of them is answered (its answer made, or its response closed). */
  readonly finished = (): void => {
    this.count -= 1;
  };
}

/**
 * What a client's FIN (it shut its sending side) means to the server, which runs node's half-open mode
 * (`httpAllowHalfOpen`): the answers already made are written first (`writeReady`), and they all reach the
 * client, pipelined ones too, before node ends the connection after the last. If a request is still being
 * worked on, the client is treated as gone, as node treats any FIN by default: the connection is ended at
 * once, so that request's signal aborts (a model call is cancelled) and its answer is not written.
 */
export class ClientEnds {
  readonly #running = new WeakMap<Socket, RunningRequests>();

  constructor(private readonly writeReady: () => void) {}

  /** A request begins on `socket`; call the returned `finished` once its answer is made or its response closes. */
  started(socket: Socket): RunningRequests {
    let running = this.#running.get(socket);
    if (running === undefined) {
      const created = new RunningRequests();
      running = created;
      this.#running.set(socket, created);
      // Before node's own 'end' listener, which in half-open mode ends the connection after the last answer.
      socket.prependListener("end", () => this.#clientEnded(socket, created));
    }
    running.count += 1;
    return running;
  }

  #clientEnded(socket: Socket, running: RunningRequests): void {
    this.writeReady();
    if (running.count > 0) socket.end();
  }
}
