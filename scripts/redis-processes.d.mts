// Types of scripts/redis-processes.mjs, for the tests that start Redis through it.
import type { ChildProcess } from 'node:child_process';

export declare const REDIS_SERVER: string;
export declare const REDIS_SENTINEL: string;
export declare const REDIS_CLI: string;

export declare function redisCli(port: number, ...args: string[]): Promise<string>;

export declare function freePort(options?: { withBus?: boolean }): Promise<number>;

export interface RedisServerProcess {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly child: ChildProcess | undefined;
  readonly running: boolean;
  start(options?: { fresh?: boolean }): Promise<void>;
  stop(): Promise<void>;
  kill(): Promise<void>;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export declare function startRedisServer(options?: {
  persistence?: 'aof' | 'none';
  port?: number;
  extra?: string[];
  withBus?: boolean;
}): Promise<RedisServerProcess>;

export interface RedisClusterProcesses {
  nodes: RedisServerProcess[];
  rootNodes: { url: string }[];
  nodesOf(key: string): Promise<{ master: RedisServerProcess; replicas: RedisServerProcess[] }>;
  close(): Promise<unknown>;
}

export declare function startRedisCluster(options?: { masters?: number; replicas?: number }): Promise<RedisClusterProcesses>;

export interface RedisSentinelProcesses {
  name: string;
  primary: RedisServerProcess;
  replica: RedisServerProcess;
  replicas: RedisServerProcess[];
  servers: RedisServerProcess[];
  sentinelRootNodes: { host: string; port: number }[];
  primaryPort(): Promise<number>;
  close(): Promise<void>;
}

export declare function startRedisSentinel(options?: { name?: string; replicas?: number }): Promise<RedisSentinelProcesses>;
