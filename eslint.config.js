import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * A package reaches another only through its index (`@data/core`, `@data/hub`): a path into
 * another package's folder, relative or by name, fails lint.
 */
const OTHER_PACKAGES_INSIDE = [
  {
    group: ['**/core/src/**', '**/hub/src/**', '**/cli/src/**', '**/packages/**'],
    message: 'import the package by its name, from its index',
  },
  { group: ['@data/*/*', 'data/*'], message: 'a package is imported from its index only' },
];

/**
 * The same for `import()`, which no-restricted-imports does not look at (a slash is \u002F:
 * the selector's regular expression cannot hold one).
 */
const DYNAMIC_INSIDE = {
  selector: String.raw`ImportExpression[source.value=/(^|\u002F)(core|hub|cli)\u002Fsrc\u002F|(^|\u002F)packages\u002F|^@data\u002F[^\u002F]+\u002F|^data\u002F/]`,
  message: 'import the package by its name, from its index',
};

/** `import()` of a package that the one importing it must not depend on. */
const dynamicImportOf = (name) => ({
  selector: `ImportExpression[source.value='${name}']`,
  message: `this package does not import ${name}`,
});

const RECURSIVE_MKDIR = {
  selector:
    "CallExpression[callee.name=/^mkdir(Sync)?$/] Property[key.name='recursive'][value.value=true]",
  message:
    'recursive mkdir never returns on some file systems (/proc): use makeDirectory from files/directories.ts',
};

/** The domain picks no exit code: the CLI answers its errors (packages/cli/src/exit-codes.ts). */
const EXIT_CODES = {
  group: ['**/exit-codes', '**/exit-codes.js'],
  message: 'the domain picks no exit code: throw its error, and the CLI maps it (exit-codes.ts)',
};

export default tseslint.config(
  { ignores: ['**/dist/', 'node_modules/', 'examples/', 'coverage/', 'test-output/', '.bench/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { varsIgnorePattern: '^_', argsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  {
    files: ['packages/*/src/**'],
    rules: { 'no-restricted-syntax': ['error', RECURSIVE_MKDIR, DYNAMIC_INSIDE] },
  },
  {
    files: ['packages/core/src/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        RECURSIVE_MKDIR,
        DYNAMIC_INSIDE,
        dynamicImportOf('@data/hub'),
        dynamicImportOf('data'),
      ],
    },
  },
  {
    files: ['packages/hub/src/**'],
    rules: {
      'no-restricted-syntax': ['error', RECURSIVE_MKDIR, DYNAMIC_INSIDE, dynamicImportOf('data')],
    },
  },
  {
    files: ['packages/core/src/**', 'packages/cli/src/client/**', 'packages/cli/src/transfers/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['commander', 'ora', '@data/hub', 'data'],
          patterns: [
            {
              group: ['**/output/**', '**/commands/**'],
              message: 'the core returns data; the CLI renders it',
            },
            EXIT_CODES,
            ...OTHER_PACKAGES_INSIDE,
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'console', message: 'the core returns data; output/ renders it' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'exit' },
        { object: 'process', property: 'env' },
        { object: 'process', property: 'stdout' },
        { object: 'process', property: 'stderr' },
      ],
    },
  },
  {
    files: ['packages/hub/src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: ['commander', 'ora', 'data'], patterns: [EXIT_CODES, ...OTHER_PACKAGES_INSIDE] },
      ],
    },
  },
  {
    // The engines keep the hub's data; the services and handlers above them use them.
    files: ['packages/hub/src/engines/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['commander', 'ora', 'data'],
          patterns: [
            {
              group: ['**/services/**', '**/http/**', '**/views/**'],
              message: 'an engine imports no service, handler or view: they import it',
            },
            EXIT_CODES,
            ...OTHER_PACKAGES_INSIDE,
          ],
        },
      ],
    },
  },
  {
    files: ['packages/cli/src/**'],
    ignores: ['packages/cli/src/client/**', 'packages/cli/src/transfers/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: OTHER_PACKAGES_INSIDE }] },
  },
  {
    // A value taken from the hub statically would make the bundle require it at load, and a CLI
    // installed alone would fail for every command: the serve commands import() it.
    files: ['packages/cli/src/**'],
    ignores: ['packages/cli/src/commands/serve-hub.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@data/hub',
              allowTypeImports: true,
              message: 'load it through loadHub() (commands/serve-hub.ts)',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
);
