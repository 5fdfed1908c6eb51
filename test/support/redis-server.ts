/**
 * Real Redis processes for the tests (scripts/redis-processes.mjs, shared with npm run load): a server that can
 * be paused, killed, stopped and started again with or without its data; a three-master cluster; a primary and
 * a replica under redis-sentinel.
 */
export {
  freePort,
  redisCli,
  startRedisServer as startRedis,
  startRedisCluster,
  startRedisSentinel,
  REDIS_SERVER,
  type RedisServerProcess as TestRedis,
  type RedisClusterProcesses,
  type RedisSentinelProcesses,
} from '../../scripts/redis-processes.mjs';
