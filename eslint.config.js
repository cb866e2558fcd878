import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import react from 'eslint-plugin-react';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
    {
        ignores: [
            'dist',
            'dist-server',
            'data',
            'coverage',
            'node_modules',
            'src/api/schema.d.ts',
            'tests/e2e/output',
            'tmp',
            // The scaffolder test's output while it runs (beside the checks in npm test): checked by that test.
            'tests/resources/scaffold-tmp',
        ],
    },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        files: ['**/*.{ts,tsx}'],
        plugins: { react, 'react-hooks': reactHooks },
        languageOptions: { globals: { ...globals.browser, ...globals.node } },
        settings: { react: { version: 'detect' } },
        rules: {
            ...react.configs.recommended.rules,
            ...react.configs['jsx-runtime'].rules,
            'react-hooks/rules-of-hooks': 'error',
            'react-hooks/exhaustive-deps': 'warn',
            'react/prop-types': 'off',
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
        },
    },
    { files: ['**/*.{js,mjs}'], languageOptions: { globals: { ...globals.node } } },
);
