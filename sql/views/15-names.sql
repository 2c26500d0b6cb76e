-- The names of the workspace's Canvases, campaigns and segments: one source for every view and chart that shows them.

-- Internal: the current name of each Canvas, campaign or segment (`object_kind`: 'canvases', 'campaigns' or 'segments'),
-- from the first source that names it: its details (the canvas_details, campaigns or segments stream); else the last
-- list a run read that showed it (discovery stores every list it reads, so `segment_size: { segments: all }` names its
-- segments without the segments stream), a current entry before one the list stopped showing and the plain list before
-- the one with archived objects; else, for a Canvas, the name its latest summary day carries. An object no source names
-- has no row. `label` is what a chart shows: the name, with the id in parentheses when another object of the kind has
-- the same name, since a reader could not tell the two apart by the name alone.
CREATE OR REPLACE MACRO "analytics"."object_names"("object_kind") AS TABLE
WITH "known" AS (
  SELECT "id", arg_min("name", "source") AS "name" FROM (
    SELECT 'canvases' AS "kind", "canvas_id" AS "id", "name", 0 AS "source" FROM "main"."canvases"
    UNION ALL SELECT 'campaigns', "campaign_id", "name", 0 FROM "main"."campaigns"
    UNION ALL SELECT 'segments', "segment_id", "name", 0 FROM "main"."segments"
    UNION ALL
    SELECT split_part("listing", '+', 1), "id", "name",
           1 + CASE WHEN "_removed_at" IS NULL THEN 0 ELSE 2 END + CASE WHEN contains("listing", '+') THEN 1 ELSE 0 END
    FROM "main"."listed_objects"
  ) WHERE "kind" = "object_kind" AND "name" <> '' GROUP BY "id"
),
-- A Canvas's summaries are millions of rows in a large workspace: only those of Canvases nothing else names are grouped.
"named" AS (
  SELECT "id", "name" FROM "known"
  UNION ALL
  SELECT "canvas_id", arg_max("name", "day") FROM "main"."canvas_summary"
  WHERE "object_kind" = 'canvases' AND "name" <> '' AND "canvas_id" NOT IN (SELECT "id" FROM "known") GROUP BY "canvas_id"
)
SELECT "id", "name", "name" || CASE WHEN count(*) OVER (PARTITION BY "name") > 1 THEN ' (' || "id" || ')' ELSE '' END AS "label"
FROM "named";
