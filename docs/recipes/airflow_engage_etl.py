"""Airflow DAG: the nightly engage-etl export, calling the CLI.

Copy into the DAGs folder of a worker that has Node 20 and a checkout of engage-etl (npm install done there).
Exit codes: 0 done; 3 completed with warnings (some units or rows not done) -> the task succeeds and logs a warning;
2 usage or configuration error, 1 failed -> the task fails without retrying (a retry cannot fix a bad flag, pipeline
file or id, and a run already retries what is transient; what it committed stays and the next night resumes from it);
130 interrupted -> the task fails and Airflow retries it (a run resumes from what it committed).
The pipeline is your own file, written in the checkout by
`node bin/engage-etl.js init --output pipelines/workspace.yaml` (README: "Moving to a real account"); the shipped
pipelines/nightly.yaml works against any workspace too.
The key is read from the environment (ENGAGE_API_KEY, e.g. from an Airflow connection exported by the deployment)
or from the .env file of the checkout, never from the DAG.
"""

import json
import logging
import os
import shlex
import subprocess

import pendulum
from airflow.decorators import dag, task
from airflow.exceptions import AirflowException, AirflowFailException

ENGAGE_ETL_HOME = os.environ.get("ENGAGE_ETL_HOME", "/srv/engage-etl")
NODE = os.environ.get("ENGAGE_ETL_NODE", "/usr/bin/node")
# The command line, as it would be typed in ENGAGE_ETL_HOME (docs tests parse it with the CLI's own parser).
ENGAGE_ETL_RUN = "bin/engage-etl.js run --pipeline pipelines/workspace.yaml --json --log-level warn --metrics-file data/engage_etl.prom"

COMPLETED_WITH_WARNINGS = 3
# Retrying cannot help these: a usage or configuration error, or a run that failed after its own retries.
NOT_WORTH_RETRYING = (1, 2)

log = logging.getLogger(__name__)


@dag(
    dag_id="engage_etl_nightly",
    schedule="30 2 * * *",
    start_date=pendulum.datetime(2025, 1, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    tags=["engage-etl"],
)
def engage_etl_nightly():
    @task(retries=2, retry_delay=pendulum.duration(minutes=20))
    def export() -> dict:
        proc = subprocess.run(
            [NODE, *shlex.split(ENGAGE_ETL_RUN)],
            cwd=ENGAGE_ETL_HOME,
            capture_output=True,
            text=True,
            check=False,
        )
        for line in proc.stderr.splitlines():
            log.info("engage-etl: %s", line)
        lines = proc.stdout.strip().splitlines()
        result = json.loads(lines[-1]) if lines else {}
        if proc.returncode == 0:
            return result
        if proc.returncode == COMPLETED_WITH_WARNINGS:
            log.warning("engage-etl completed with warnings: %s", result.get("warnings"))
            return result
        message = f"engage-etl run exited {proc.returncode}: {result.get('error')}"
        if proc.returncode in NOT_WORTH_RETRYING:
            raise AirflowFailException(message)
        raise AirflowException(message)

    export()


engage_etl_nightly()
