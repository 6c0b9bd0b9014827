// The descriptor types are the model's (model/types.ts), under the names the validator reads.
export type {
  Constraints,
  Dialect as DialectDescriptor,
  Field as FieldDescriptor,
  ForeignKey as ForeignKeyDescriptor,
  MissingValue,
  Package as PackageDescriptor,
  Resource as ResourceDescriptor,
  Schema as SchemaDescriptor,
  StandardVersion,
} from '../../model/types.js';
