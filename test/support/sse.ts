/**
 * Reads the kit's status stream as a test client: every event and comment as it arrives, through the same
 * reader the status stream client uses (src/core/stream.ts), with waits that fail saying what they waited for.
 */
import { EventStreamReader, type ReceivedEvent } from '../../src/core/index.js';

export interface OpenedStream {
  status: number;
  contentType: string;
  events: ReceivedEvent[];
  /** Comment lines (heartbeats) seen. */
  comments: number;
  /** The raw text received so far. */
  text: string;
  /** Resolves when the server ended the response. */
  ended: Promise<void>;
  /** Waits for the `count`th event of `type` (1 = the first). */
  next(type: string, count?: number, timeoutMs?: number): Promise<ReceivedEvent>;
  /** The JSON body, when the answer was not a stream (a refusal). */
  json(): Promise<any>;
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenedStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  const contentType = response.headers.get('content-type') ?? '';
  const stream: OpenedStream = {
    status: response.status,
    contentType,
    events: [],
    comments: 0,
    text: '',
    ended: Promise.resolve(),
    async next(type, count = 1, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = stream.events.filter((event) => event.type === type);
        if (found.length >= count) return found[count - 1]!;
        if (Date.now() > deadline) throw new Error(`no ${type} event #${count} within ${timeoutMs} ms; got: ${JSON.stringify(stream.text)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    json: () => response.json(),
    close: () => abort.abort(),
  };
  if (!contentType.startsWith('text/event-stream') || !response.body) return stream;
  const reader = new EventStreamReader();
  const decoder = new TextDecoder();
  const body = response.body.getReader();
  stream.ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await body.read();
        if (done) return;
        const text = decoder.decode(value, { stream: true });
        stream.text += text;
        stream.comments += (text.match(/^:/gm) ?? []).length;
        stream.events.push(...reader.push(text));
      }
    } catch {
      // aborted by the test
    }
  })();
  return stream;
}
