import type { ErrorType } from './catalog.js';

export interface ReportError {
  type: ErrorType;
  title: string;
  description: string;
  message: string;
  tags: string[];
  note: string;
  labels?: string[];
  rowNumbers?: number[];
  label?: string;
  cells?: string[];
  rowNumber?: number;
  cell?: string;
  fieldName?: string;
  fieldNumber?: number;
  fieldNames?: string[];
  fieldCells?: string[];
  referenceName?: string;
  referenceFieldNames?: string[];
}

export type ErrorDetails = Omit<
  ReportError,
  'type' | 'title' | 'description' | 'message' | 'tags' | 'note'
>;

export interface TaskStats {
  md5?: string;
  sha256?: string;
  bytes?: number;
  fields?: number;
  rows?: number;
  warnings: number;
  errors: number;
  seconds: number;
}

export interface Task {
  valid: boolean;
  name: string;
  type: string;
  place: string;
  labels: string[];
  stats: TaskStats;
  warnings: string[];
  errors: ReportError[];
}

export interface Report {
  valid: boolean;
  stats: { tasks: number; errors: number; warnings: number; seconds: number };
  warnings: string[];
  errors: ReportError[];
  tasks: Task[];
}
