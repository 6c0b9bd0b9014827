/**
 * What `data serve migrate-storage` copies from one engine to another, table by table in
 * this order, with the columns of each: everything but the short-lived sign-in states.
 */
export const MOVED_TABLES = {
  users: [
    'userid',
    'username',
    'email',
    'name',
    'provider',
    'subject',
    'join_date',
    'kind',
    'maker',
  ],
  members: ['orgid', 'userid', 'role'],
  objects: ['key', 'ownerid', 'bytes', 'private', 'created'],
  holdings: ['ownerid', 'key', 'bytes', 'private', 'created', 'head_md5'],
  uploads: ['ownerid', 'path', 'key'],
  datasets: [
    'ownerid',
    'name',
    'findability',
    'title',
    'description',
    'published_revision',
    'modified',
    'bytes',
    'row_count',
    'license',
  ],
  revisions: [
    'ownerid',
    'dataset',
    'revision',
    'state',
    'spec',
    'spec_bytes',
    'pipelines',
    'error_log',
    'descriptor',
    'report',
    'created',
    'modified',
    'findability',
    'files',
    'lease_owner',
    'lease_until',
    'changes',
    'request_id',
    'stats',
  ],
  revoked_tokens: ['jti', 'expires'],
  tokens: ['id', 'userid', 'name', 'hash', 'scope', 'datasets', 'created', 'last_used', 'expires'],
  publishers: ['id', 'ownerid', 'dataset', 'issuer', 'claims', 'created', 'created_by'],
  shared_values: ['name', 'value'],
  deleted_names: ['ownerid', 'name', 'last_revision'],
} as const;

export type MovedTable = keyof typeof MOVED_TABLES;
export type Row = Record<string, unknown>;
