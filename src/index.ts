// The public surface of engage-etl, by name: what a user's code calls to run the export, the emulator and push, and the
// types of what comes back. Everything else (paginators, header parsers, the merge) is internal and may change.
export {
  EngageError,
  RetriableError,
  FatalError,
  ConfigError,
  RetriableApiError,
  FatalApiError,
  LockedError,
} from './errors.js';
export type { RequestContext } from './errors.js';

export { loadPipelineFile, parsePipelineText } from './config/load-pipeline-file.js';
export type { BackfillOrder, PipelineDefinition, StreamsConfig, StreamName } from './config/pipeline-definition.js';
export { resolveRunOptions } from './config/run-options.js';
export type { RunOptions, RawRunFlags } from './config/run-options.js';
export { STREAM_NAMES } from './streams/registry.js';
export type { IdSelection } from './streams/option-reader.js';

export { runPipeline } from './pipeline/run-pipeline.js';
export type {
  RunSummary,
  PipelineDeps,
  TableSummary,
  HoleSummary,
  MissingUnitReport,
} from './pipeline/run-pipeline.js';
export type { SeriesFailure, StreamFailure } from './pipeline/stream-failure.js';
export type { BackfillProgress } from './load/backfill-store.js';
export { StreamsFailedError } from './pipeline/streams-failed-error.js';
export type { RunEvent, RunReporter, RunWarning, StreamProgress } from './pipeline/run-events.js';

export { Warehouse } from './load/warehouse.js';
export type { WarehouseOptions } from './load/warehouse.js';
export { SeriesStateStore } from './load/series-state-store.js';
export type { StatusRow, SeriesState, Hole } from './load/series-state-store.js';
export type { WarehouseTables } from './load/warehouse-tables.js';
export { WAREHOUSE_TABLES } from './streams/table-specs.js';
export { exportParquet, exportBookkeeping } from './export/export-parquet.js';
export type { ExportOptions, ExportSummary, TableExport } from './export/export-parquet.js';

export { ApiClient } from './api/api-client.js';
export type { ApiClientOptions, ClientEvent, ClientStats } from './api/api-client-options.js';
export { RequestScheduler } from './api/request-scheduler.js';
export type { RequestSchedulerOptions } from './api/request-scheduler.js';
export type { PoolWait } from './api/limit-pool.js';
export type { ApiCall, ApiResponse, QueryValue } from './api/api-call.js';
export { ENDPOINTS, LIMIT_POOLS, ALL_PERMISSIONS } from './api/endpoints.js';
export type { EndpointSpec, EndpointName, LimitPool, PoolId } from './api/endpoints.js';

export { createAnalyticsViews, analyticsViewsSql, ANALYTICS_SCHEMA } from './views/analytics-views.js';
export { parquetViewsSql } from './views/parquet-views-sql.js';
export { writeReport } from './report/write-report.js';
export type { ReportOptions, ReportSummary } from './report/write-report.js';

export { createEmulator } from './emulator/server.js';
export type { Emulator, EmulatorOptions, EmulatorStats } from './emulator/server.js';
export type { SeriesFault, SeriesFaultMode, SeriesFaultRecord } from './emulator/series-faults.js';
export type { KeyFileEntry } from './emulator/credentials.js';
export { describeWorkspace } from './emulator/describe-workspace.js';
export type { CanvasSummarySkew, Restatement } from './emulator/analytics/analytics-workspace.js';
export { SIZE_PRESETS } from './emulator/analytics/workspace-size.js';
export type { IdStyle, WorkspaceSize } from './emulator/analytics/workspace-size.js';

export { runPush } from './push/run-push.js';
export type { PushResult, PushSummary, FailedRow } from './push/run-push.js';
export { resolvePushOptions } from './push/push-options.js';
export type { PushOptions, RawPushFlags } from './push/push-options.js';
export { PUSH_TARGETS } from './push/target-registry.js';
export type { PushTarget, TargetName } from './push/push-target.js';
export type { DryRunReport } from './push/dry-run-report.js';
