// The public surface of engage-etl, by name.
export { EngageError, RetriableError, FatalError, ConfigError, RetriableApiError, FatalApiError, LockedError } from './errors.js';
export type { RequestContext } from './errors.js';
export { ENDPOINTS, LIMIT_POOLS, ALL_PERMISSIONS } from './api/endpoints.js';
export type { EndpointSpec, EndpointName, LimitPool, PoolId } from './api/endpoints.js';
