/**
 * The wire protocol between `data` and a hub (docs/protocol.md), typed once for both sides:
 * the hub's handlers answer these types, and the client reads a hub's answers through the
 * guards of protocol/guards.ts before it trusts them.
 */

/** Who may find a dataset: everyone, whoever has its address, or its owner only. */
export type Findability = 'published' | 'unlisted' | 'private';

/** The state of a publication (a flow) and of each of its steps. */
export type FlowState = 'QUEUED' | 'INPROGRESS' | 'SUCCEEDED' | 'FAILED';

/** `POST /source/upload`'s body: what to publish, and where its files are stored. */
export interface FlowSpec {
  meta: {
    version?: number;
    ownerid: string;
    owner: string;
    dataset: string;
    findability?: Findability;
    /** Ours: make a revision even when the package is the one published. */
    force?: boolean;
  };
  inputs: {
    kind: 'datapackage';
    url: string;
    parameters: { descriptor: Record<string, unknown>; 'resource-mapping': Record<string, string> };
  }[];
}

/** One step of a publication, in its status. */
export interface PipelineState {
  title: string;
  status: FlowState | 'SKIPPED';
  stats?: Record<string, unknown>;
  error_log?: string[];
}

/** `GET /source/<userid>/<dataset>/<revision>`: a publication's status. */
export interface FlowStatus {
  id: string;
  state: FlowState;
  pipelines: Record<string, PipelineState>;
  error_log: string[];
  stats?: Record<string, unknown>;
  modified?: string;
}

/** `POST /source/upload`'s answer. */
export interface SourceUploadAnswer {
  success: boolean;
  dataset_id?: string;
  flow_id?: string;
  errors: string[];
  /** Ours: the package is the one published; `flow_id` is that revision's. */
  unchanged?: boolean;
}

/** One file's entry of `POST /rawstore/authorize`'s body. */
export interface UploadRequestEntry {
  length: number;
  /** Base64 MD5 of the file; omitted with `digest_after`, which gives `head_md5`. */
  md5?: string;
  head_md5?: string;
  name: string;
  type: string;
}

/** `POST /rawstore/authorize`'s body. */
export interface UploadRequest {
  /**
   * Ours: `dataset`, the dataset the files are for; optional, but a credential limited to
   * some datasets is refused without it, or with one not in its list.
   */
  metadata: { owner: string; findability: Findability; dataset?: string };
  filedata: Record<string, UploadRequestEntry>;
  upload_methods?: string[];
  digest_after?: boolean;
}

/** Where and how one file is uploaded: an entry of `POST /rawstore/authorize`'s answer. */
export interface UploadTarget {
  upload_url: string;
  upload_query: Record<string, string>;
  /** Ours: `PUT` when the hub's store takes the bytes at a presigned URL, `PARTS` for an
   *  upload that goes on where it broke off; else a POST form. */
  upload_method?: string;
  /** Headers the PUT must send, exactly (length and Content-MD5 are in its signature). */
  upload_headers?: Record<string, string>;
  /** The stored object's URL for the resource mapping. */
  object_url?: string;
  /**
   * Ours, for a file authorized without its MD5: `after` with a form whose digest follows
   * the file, or `first` when the hub wants the digest before the bytes.
   */
  digest?: string;
  /**
   * Ours, with `digest: after`: false when the owner holds no object of the file's length
   * and `head_md5`, so the hub cannot hold the file and the client need not hash it to ask.
   */
  may_exist?: boolean;
  exists: boolean;
}

/** `POST /rawstore/authorize`'s answer. */
export interface UploadAnswer {
  filedata: Record<string, UploadTarget>;
}

/** The answer to an upload of a form or the end of a resumable one. */
export interface StoredObject {
  object_url: string;
  md5: string;
}

/** `GET /auth/check`'s answer. */
export interface AuthCheck {
  authenticated: boolean;
  profile?: Record<string, unknown>;
  providers?: Record<string, { url: string }>;
  /** Ours: of a named token (`dt_…`), its name, scope, datasets and expiry (ISO 8601). */
  token?: { name: string; scope: string; datasets: string[]; expires: string };
}

/** `GET /auth/authorize`'s answer: without `token` when the user token is not valid. */
export interface AuthorizeAnswer {
  userid?: string;
  permissions: Record<string, unknown>;
  service?: string;
  token?: string;
}

/** `POST /auth/token`'s answer (ours). */
export interface TokenAnswer {
  token: string;
}

/** `POST /auth/logout`'s answer (ours). */
export interface LogoutAnswer {
  revoked: boolean;
}

/** `GET /auth/resolve`'s answer. */
export interface ResolveAnswer {
  userid: string | null;
  /** (ours) Whether the name is a user's or an organisation's; absent from older hubs. */
  kind?: 'user' | 'organisation';
}

/** `GET /rawstore/presign`'s answer. */
export interface PresignAnswer {
  url: string;
}

/** One dataset of `GET /metastore/search`'s answer. */
export interface SearchResult {
  id: string;
  name: string;
  title?: string | null;
  datahub: {
    owner: string;
    ownerid?: string;
    findability: string;
    stats?: { revision?: number };
  };
  datapackage?: { description?: string };
}

/** `GET /metastore/search`'s answer. */
export interface SearchAnswer {
  results: SearchResult[];
  summary: { total: number; totalBytes?: number };
}

/** One revision of `GET /source/<userid>/<dataset>/revisions` (ours). */
export interface RevisionEntry {
  revision: number;
  state: string;
  findability: string | null;
  published: boolean;
  created: string;
  modified: string;
  /**
   * Its changes since the published revision before it, once the hub summed them up (a
   * ChangeSummary, else null): read with asChangeSummary, which tells one.
   */
  changes?: unknown;
}
