// Where the commands read and write when no flag says otherwise: one home, so every command's help and the option
// resolvers agree (`run`, `export`, `query`, `status`, `push`… all open the same warehouse by default).

/** The pipeline definition `run`, `check` and `plan` read. */
export const DEFAULT_PIPELINE_PATH = 'pipelines/nightly.yaml';
/** The published DuckDB warehouse every command opens. */
export const DEFAULT_DB_PATH = 'data/engage.duckdb';
/** The Parquet tree `run` and `export` write and `views` reads. */
export const DEFAULT_OUT_DIR = 'data/parquet';
