// Real Redis processes on 127.0.0.1 for the tests and npm run load: a server (its append-only file in a
// directory of its own, so that it can be killed and started again with its data or without), a three-master
// cluster (`redis-server --cluster-enabled yes` and `redis-cli --cluster create`), and a primary with a replica
// watched by redis-sentinel. Every process is started on free ports and stopped by its id.
import { spawn, execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';
export const REDIS_SENTINEL = process.env.REDIS_SENTINEL_PATH ?? '/usr/bin/redis-sentinel';
export const REDIS_CLI = process.env.REDIS_CLI_PATH ?? '/usr/bin/redis-cli';

async function listenable(port) {
  const server = createServer();
  try {
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    return server.address().port;
  } catch {
    return undefined;
  } finally {
    await new Promise((resolve) => server.close(() => resolve()));
  }
}

/** A port nobody listens on now (and, for a cluster node, its bus port 10 000 above it). */
export async function freePort({ withBus = false } = {}) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await listenable(0);
    if (port === undefined) continue;
    if (!withBus) return port;
    if (port + 10_000 < 65_536 && (await listenable(port + 10_000)) !== undefined) return port;
  }
  throw new Error('no free port found');
}

/** Starts `command args`, resolves once its output says `ready`; rejects on exit or after 10 s. */
async function spawnUntil(command, args, ready, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let output = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start within 10 s: ${output}`)), 10_000);
    const read = (chunk) => {
      output += chunk;
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}): ${output}`));
    });
  });
  child.stdout.resume();
  child.stderr.resume();
  child.removeAllListeners('exit');
  return child;
}

async function ended(child, signal) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/**
 * One redis-server. `persistence: 'aof'` (the default) keeps an append-only file (`appendfsync everysec`) in its
 * own directory; `'none'` keeps nothing (`--save '' --appendonly no`). `extra` are more arguments.
 */
export async function startRedisServer({ persistence = 'aof', port, extra = [], withBus = false } = {}) {
  const chosen = port ?? (await freePort({ withBus }));
  const dir = mkdtempSync(join(tmpdir(), 'svc-redis-'));
  const settings =
    persistence === 'aof' ? ['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''] : ['--appendonly', 'no', '--save', ''];
  let child;
  const server = {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    dir,
    get child() {
      return child;
    },
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    /** Starts it again on the same port; `fresh` first throws its data away (a Redis back without it). */
    async start({ fresh = false } = {}) {
      if (fresh) rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      child = await spawnUntil(
        REDIS_SERVER,
        ['--port', String(chosen), '--bind', '127.0.0.1', '--dir', dir, ...settings, ...extra],
        'Ready to accept connections',
      );
    },
    /** Shuts it down as an operator does (SIGTERM: the append-only file is complete). */
    stop: () => ended(child, 'SIGTERM'),
    /** Kills it at once, as a crash does. */
    kill: () => ended(child, 'SIGKILL'),
    /** Freezes it (SIGSTOP): connections stay open, nothing is answered. */
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    /** Stops it and removes its directory. */
    async close() {
      child?.kill('SIGCONT');
      await ended(child, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

const run = promisify(execFile);

/** `redis-cli -p port args…`: its output. */
export async function redisCli(port, ...args) {
  return cli(port, ...args);
}

async function cli(port, ...args) {
  const { stdout } = await run(REDIS_CLI, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 });
  return stdout;
}

/**
 * Three masters (with `replicas`, that many replicas each), every slot covered; resolves once each node says the
 * cluster is ok and each replica has its master's data.
 */
export async function startRedisCluster({ masters = 3, replicas = 0 } = {}) {
  const nodes = [];
  try {
    for (let index = 0; index < masters * (1 + replicas); index++) {
      nodes.push(
        await startRedisServer({
          withBus: true,
          extra: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'],
        }),
      );
    }
    await run(REDIS_CLI, ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', String(replicas), '--cluster-yes'], {
      timeout: 60_000,
    });
    const deadline = Date.now() + 20_000;
    for (const node of nodes) {
      while (!/cluster_state:ok/.test(await cli(node.port, 'CLUSTER', 'INFO'))) {
        if (Date.now() > deadline) throw new Error(`the cluster did not become ok: ${await cli(node.port, 'CLUSTER', 'INFO')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const replication = await cli(node.port, 'INFO', 'replication');
      while (/role:slave/.test(replication) && !/master_link_status:up/.test(await cli(node.port, 'INFO', 'replication'))) {
        if (Date.now() > deadline) throw new Error(`a replica did not sync: ${await cli(node.port, 'INFO', 'replication')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await Promise.all(nodes.map((node) => node.close()));
    throw error;
  }
  return {
    nodes,
    rootNodes: nodes.map((node) => ({ url: node.url })),
    /** The nodes serving `key`'s slot now: its master and its replicas (from CLUSTER NODES). */
    async nodesOf(key) {
      const slot = Number((await cli(nodes[0].port, 'CLUSTER', 'KEYSLOT', key)).trim());
      const lines = (await cli(nodes[0].port, 'CLUSTER', 'NODES')).trim().split('\n').map((line) => line.split(' '));
      const portOf = (fields) => Number(fields[1].split('@')[0].split(':')[1]);
      const nodeAt = (port) => nodes.find((node) => node.port === port);
      const master = lines.find(
        (fields) =>
          fields[2].includes('master') &&
          !fields[2].includes('fail') &&
          fields.slice(8).some((range) => {
            const [from, to = from] = range.split('-').map(Number);
            return slot >= from && slot <= to;
          }),
      );
      if (!master) throw new Error(`no master serves slot ${slot}`);
      const replicas = lines.filter((fields) => fields[3] === master[0] && !fields[2].includes('fail')).map((fields) => nodeAt(portOf(fields)));
      return { master: nodeAt(portOf(master)), replicas };
    },
    close: () => Promise.all(nodes.map((node) => node.close())),
  };
}

/**
 * A primary and `replicas` replicas (one by default), each with an append-only file, watched by one redis-sentinel
 * (quorum 1) that fails over a second after the primary stops answering. `name` is the name the Sentinel client asks
 * for. `replica` is the first replica; `nodes()` each server's role now.
 */
export async function startRedisSentinel({ name = 'svc-primary', replicas: count = 1 } = {}) {
  const primary = await startRedisServer();
  const replicas = [];
  for (let index = 0; index < count; index++) replicas.push(await startRedisServer({ extra: ['--replicaof', '127.0.0.1', String(primary.port)] }));
  const servers = [primary, ...replicas];
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-sentinel-'));
  const config = join(dir, 'sentinel.conf');
  writeFileSync(
    config,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${primary.port} 1`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} ${Math.max(1, count)}`,
      '',
    ].join('\n'),
  );
  let sentinel;
  try {
    sentinel = await spawnUntil(REDIS_SENTINEL, [config], 'Sentinel ID is');
    // The replicas have the primary's data before anything is written.
    const deadline = Date.now() + 20_000;
    for (const replica of replicas) {
      while (!/master_link_status:up/.test(await cli(replica.port, 'INFO', 'replication'))) {
        if (Date.now() > deadline) throw new Error('the replica did not sync');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await ended(sentinel, 'SIGKILL');
    await Promise.all(servers.map((server) => server.close()));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    name,
    primary,
    replica: replicas[0],
    replicas,
    servers,
    sentinelRootNodes: [{ host: '127.0.0.1', port }],
    /** The port of the node the sentinel names primary now. */
    async primaryPort() {
      const answer = await cli(port, 'SENTINEL', 'get-master-addr-by-name', name);
      return Number(answer.trim().split('\n')[1]);
    },
    async close() {
      await ended(sentinel, 'SIGKILL');
      await Promise.all(servers.map((server) => server.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
