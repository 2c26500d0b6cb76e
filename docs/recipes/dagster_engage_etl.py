"""Dagster: the engage-etl warehouse as an asset, materialized nightly by calling the CLI.

Load with `dagster dev -f docs/recipes/dagster_engage_etl.py` on a machine with Node 20 and a checkout of engage-etl.
Exit codes: 0 done; 3 completed with warnings -> the materialization succeeds, with a warning in the log and the
warnings in its metadata; 2 usage or configuration error or 1 failed -> failure, no retry (a retry cannot fix a bad
flag, file or id, and a run already retries what is transient); 130 interrupted -> failure that the retry policy
retries (a run resumes from what it committed). The key comes from the environment (ENGAGE_API_KEY) or the
checkout's .env file. The pipeline is your own file, written in the checkout by
`node bin/engage-etl.js init --output pipelines/workspace.yaml` (README: "Moving to a real account").
"""

import json
import os
import shlex
import subprocess

from dagster import (
    AssetExecutionContext,
    Definitions,
    Failure,
    MaterializeResult,
    MetadataValue,
    RetryPolicy,
    ScheduleDefinition,
    asset,
    define_asset_job,
)

ENGAGE_ETL_HOME = os.environ.get("ENGAGE_ETL_HOME", "/srv/engage-etl")
NODE = os.environ.get("ENGAGE_ETL_NODE", "/usr/bin/node")
# The command line, as it would be typed in ENGAGE_ETL_HOME (docs tests parse it with the CLI's own parser).
ENGAGE_ETL_RUN = "bin/engage-etl.js run --pipeline pipelines/workspace.yaml --json --log-level warn"

COMPLETED_WITH_WARNINGS = 3
# Retrying cannot help these: a usage or configuration error, or a run that failed after its own retries.
NOT_WORTH_RETRYING = (1, 2)


@asset(group_name="engage_etl", retry_policy=RetryPolicy(max_retries=2, delay=1200))
def engage_etl_warehouse(context: AssetExecutionContext) -> MaterializeResult:
    proc = subprocess.run(
        [NODE, *shlex.split(ENGAGE_ETL_RUN)],
        cwd=ENGAGE_ETL_HOME,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in proc.stderr.splitlines():
        context.log.info(line)
    lines = proc.stdout.strip().splitlines()
    result = json.loads(lines[-1]) if lines else {}
    if proc.returncode not in (0, COMPLETED_WITH_WARNINGS):
        raise Failure(
            description=f"engage-etl run exited {proc.returncode}: {result.get('error')}",
            allow_retries=proc.returncode not in NOT_WORTH_RETRYING,
        )
    if proc.returncode == COMPLETED_WITH_WARNINGS:
        context.log.warning(f"engage-etl completed with warnings: {result.get('warnings')}")
    return MaterializeResult(
        metadata={
            "run_id": result.get("run_id"),
            "status": result.get("status"),
            "exit_code": proc.returncode,
            "requests": MetadataValue.json(result.get("requests", {})),
            "tables": MetadataValue.json(result.get("tables", [])),
            "warnings": MetadataValue.json(result.get("warnings", [])),
        }
    )


engage_etl_nightly = define_asset_job("engage_etl_nightly", selection=[engage_etl_warehouse])

defs = Definitions(
    assets=[engage_etl_warehouse],
    jobs=[engage_etl_nightly],
    schedules=[ScheduleDefinition(job=engage_etl_nightly, cron_schedule="30 2 * * *", execution_timezone="UTC")],
)
