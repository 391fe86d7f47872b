/** A message as a producer hands it to the bus: every topic's messages have this shape. */
export interface OutgoingMessage {
  /** Partitioning key: the app id for events, so one app's events stay in order. */
  readonly key: string;
  readonly value: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}
