/**
 * The string formats the Frictionless profiles use, as ajv checks them: plain definitions,
 * so that the validators the build compiles ahead of time can load them too.
 */
export const FORMATS = {
  email: /^[^\s@]+@[^\s@]+$/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$/,
  'date-time': {
    validate: (value: string): boolean =>
      /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) &&
      !Number.isNaN(Date.parse(value)),
  },
};
