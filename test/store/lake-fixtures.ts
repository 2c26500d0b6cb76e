// The pipeline of the lake tests: a few streams over a few weeks, so a run is short yet writes every kind of
// table the layout has — year partitions, single files, bookkeeping.
export const LAKE_YAML = `name: lake
start_date: 2025-05-20
lookback_days: 2
streams:
  revenue:         { unit: day, apps: ["*"], products: ["*"] }
  segment_size:    { segments: [seg_1] }
  canvas_details:  { canvases: [cv_1] }
  email_templates: { ids: [tpl_1] }
`;

/** The same pipeline exporting as workspace `name` of a shared lake. */
export const lakeYamlIn = (name: string): string =>
  LAKE_YAML.replace('name: lake\n', `name: lake\nworkspace: ${name}\n`);
