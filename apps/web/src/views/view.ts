/** A mounted view: the router disposes it (streams, timers) before mounting the next. */
export interface View {
  dispose(): void;
}
