// The generic dbt test of a composite key, shipped in the package instead of depending on dbt_utils: no `dbt deps`, no
// package version to keep in step, and the same SQL on every adapter (quoted names, GROUP BY, HAVING).

/** The test's name, as sources.yml calls it. */
export const UNIQUE_KEY_TEST = 'engage_etl_unique_key';

/** The macro file, `macros/engage_etl_unique_key.sql`: fails with one row per key value held by more than one row. */
export function uniqueKeyTestSql(ownedMark: string): string {
  return `{#- ${ownedMark}: rerunning it rewrites this file. -#}
{#- The rows of a composite key held more than once (dbt_utils' unique_combination_of_columns, without the dependency). -#}
{% test ${UNIQUE_KEY_TEST}(model, columns) %}
{%- set quoted = [] -%}
{%- for column in columns -%}{%- do quoted.append(adapter.quote(column)) -%}{%- endfor %}
select {{ quoted | join(', ') }}, count(*) as duplicate_rows
from {{ model }}
group by {{ quoted | join(', ') }}
having count(*) > 1
{% endtest %}
`;
}
