export { loadBundle } from './code-cache.js';
export type { LoadedBundle } from './code-cache.js';
export { diffPackages, unchanged } from './diff/index.js';
export type { DiffEvent, DiffSide, PackageDiff } from './diff/index.js';
export { diffSide, folderSide } from './diff/side.js';
export type { PackageLike } from './diff/side.js';
export { asChangeSummary, changeSummary, summaryText } from './diff/summary.js';
export type { ChangeSummary } from './diff/summary.js';
export { diffCsv, diffText } from './diff/text.js';
export {
  ApiError,
  AuthError,
  DataError,
  InputError,
  InterruptedError,
  InvalidDataError,
  NetworkError,
  NotFoundError,
  RefusedError,
  ServerError,
  UsageError,
} from './errors.js';
export type { DataErrorOptions, ErrorKind, ErrorReason } from './errors.js';
export {
  replaceFile,
  temporaryBeside,
  writeFileAtomic,
  writeFileAtomicSync,
} from './files/atomic.js';
export type { AtomicWriteOptions } from './files/atomic.js';
export { fileChunks, fileHead, kindOfNonFile } from './files/chunks.js';
export {
  DESCRIPTOR_NAMES,
  YamlSyntaxError,
  descriptorIn,
  isDescriptorPath,
  isYamlPath,
  packageDescriptor,
  readDescriptorFile,
} from './files/descriptor-file.js';
export { fileDigest, hashFile, headDigest } from './files/digest.js';
export { makeDirectory, makeDirectorySync } from './files/directories.js';
export { ALGORITHM_FIELD, CRC32_FIELD, HEAD_BYTES, crc32Base64 } from './files/hash.js';
export { dataFolder } from './files/home.js';
export { rowWriter } from './files/row-formats.js';
export type { RowFormat } from './files/row-formats.js';
export { carryingToken, credentialHeaders, tokenBelongsTo } from './http/credential.js';
export { clientFetch, errorDetail, json, send, sleep, withRetries } from './http/http.js';
export type { HttpFetch, HttpInit, HttpResponse } from './http/http.js';
export { lendingFetch } from './http/lending.js';
export { eachLimited, limiter } from './http/limit.js';
export { proxySettings } from './http/proxy.js';
export { silenceLimitMs } from './http/timeouts.js';
export { fetch, proxiedFetch } from './http/transport.js';
export {
  DERIVED_COPIES,
  derivedFile,
  derivedName,
  derivedNames,
  derivedOf,
  FILE_NAME_BYTES,
  isDerived,
  unusedName,
  zipName,
} from './model/derived.js';
export type { DerivedCopy, DerivedType } from './model/derived.js';
export { extensionOf, formatOf, isTableFormat } from './model/format.js';
export type { FormatSource } from './model/format.js';
export { isRemote, localPaths, resourcePaths, unsafeReason } from './model/paths.js';
export { resourceName, resourcesOf } from './model/resources.js';
export type {
  Constraints,
  Dialect,
  Field,
  ForeignKey,
  MissingValue,
  Package,
  Resource,
  Schema,
  StandardVersion,
} from './model/types.js';
export {
  DATASET_NAME,
  FINDABILITIES,
  flowSpecErrors,
  isAuthCheck,
  isFindability,
  isFlowSpec,
  isFlowState,
  isFlowStatus,
  isRevisionEntry,
  isSearchResult,
} from './protocol/guards.js';
export { isOrgMember, ORG_ROLES, OWNER_NAME } from './protocol/orgs.js';
export type { OrgMember, OrgRole } from './protocol/orgs.js';
export {
  CLAIM_NAME,
  claimsProblem,
  isPublisherRecord,
  isTrustedAnswer,
  isTrustRefusal,
  parseClaim,
  PROJECT_CLAIMS,
  TRUST_CHECKS,
} from './protocol/publishers.js';
export type {
  PublisherRecord,
  PublisherRequest,
  TrustCheck,
  TrustedAnswer,
  TrustedRequest,
  TrustRefusal,
} from './protocol/publishers.js';
export {
  isTokenCreated,
  isTokenRecord,
  isTokenScope,
  NAMED_TOKEN,
  sameTokenName,
  TOKEN_NAME_MAX,
  TOKEN_SCOPES,
  tokenNameProblem,
} from './protocol/tokens.js';
export type { TokenCreated, TokenRecord, TokenRequest, TokenScope } from './protocol/tokens.js';
export type {
  AuthCheck,
  AuthorizeAnswer,
  Findability,
  FlowSpec,
  FlowState,
  FlowStatus,
  LogoutAnswer,
  PipelineState,
  PresignAnswer,
  ResolveAnswer,
  RevisionEntry,
  SearchAnswer,
  SearchResult,
  SourceUploadAnswer,
  StoredObject,
  TokenAnswer,
  UploadAnswer,
  UploadRequest,
  UploadRequestEntry,
  UploadTarget,
} from './protocol/types.js';
export { regExpFlagsSet, resetRegExpFlags } from './regexp-flags.js';
export { singleExecutable } from './runtime.js';
export { catSource } from './sources/cat.js';
export { packageShape } from './sources/descriptor-shape.js';
export { atRevision, olderHubTarget, parseTarget } from './sources/target.js';
export type { Target } from './sources/target.js';
export { untilAborted } from './sources/until-aborted.js';
export { describeBytes, humanBytes } from './text/bytes.js';
export { counted, grouped, noun, roundSeconds } from './text/numbers.js';
export { COLORS, NO_COLORS, colorEnabled } from './text/palette.js';
export type { Palette } from './text/palette.js';
export { didYouMean, unknownKeyProblem } from './text/suggest.js';
export { terminalSafe, visible, visibleDeep, visibleLayout } from './text/visible.js';
export { PREVIEW_ROWS, typedField, writtenFromValue } from './validator/derive.js';
export type { DerivedTable } from './validator/derive.js';
export { detectVersion } from './validator/descriptor/paths.js';
export type {
  FieldDescriptor,
  ResourceDescriptor,
  SchemaDescriptor,
} from './validator/descriptor/types.js';
export { hashPlan } from './validator/file.js';
export {
  RemoteUnreachable,
  SourceNotFound,
  describeFile,
  isErrorType,
  validate,
  validateDescriptor,
} from './validator/index.js';
export type { ValidateEvent } from './validator/index.js';
export { OutOfMemory, validateAndDeriveIsolated, validateIsolated } from './validator/isolated.js';
export type { IsolatedOptions } from './validator/isolated.js';
export { SourceFailure } from './validator/location.js';
export type { Fetch } from './validator/location.js';
export { V2_PROFILE, readingOf, textReading } from './validator/reading.js';
export { ERROR_TYPES } from './validator/report/catalog.js';
export type { Report, ReportError, Task } from './validator/report/types.js';
export { inferResourceSchema, isTable, noteContentFormat } from './validator/resource.js';
export { readRows } from './validator/rows.js';
export { INVALID, casterFor } from './validator/schema/types/index.js';
export { isSpreadsheet } from './validator/sheets/formats.js';
export { sheetNames } from './validator/sheets/read.js';
export { listSheets } from './validator/sheets/workbook.js';
export { validationPlace } from './validator/small.js';
export type { ValidationPlace } from './validator/small.js';
export { nameFromFile } from './validator/source.js';
export { CsvParser, firstRecords } from './validator/table/csv-parser.js';
export { EncodingFailure, SAMPLE_BYTES, bomOf, isSupported } from './validator/table/encoding.js';
export { threadRangeWorker } from './validator/table/range-split.js';
export { isRangeWorker } from './validator/table/ranges.js';
export { cellText } from './validator/table/table-validator.js';
export { asksVersion, nodeTooOld, version } from './version.js';
