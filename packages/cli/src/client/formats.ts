/** The forms `data get` saves a dataset's tables in. */
export const GET_FORMATS = ['original', 'csv', 'json', 'parquet'] as const;
export type GetFormat = (typeof GET_FORMATS)[number];
