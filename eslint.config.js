import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'examples/', 'coverage/', 'test-output/', '.bench/'] },
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
    files: ['src/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.name=/^mkdir(Sync)?$/] Property[key.name='recursive'][value.value=true]",
          message:
            'recursive mkdir never returns on some file systems (/proc): use makeDirectory from files/directories.ts',
        },
      ],
    },
  },
  {
    files: ['src/validator/**', 'src/client/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: ['commander', 'ora'], patterns: ['**/output/**', '**/commands/**'] },
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
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
);
