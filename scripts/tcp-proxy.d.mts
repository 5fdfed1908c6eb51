// Types of scripts/tcp-proxy.mjs, for the tests that cut a kit process off from Redis through it.
export interface TcpProxy {
  readonly port: number;
  readonly url: string;
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export declare function startTcpProxy(options: { host?: string; port: number }): Promise<TcpProxy>;
