import { useMemo } from 'react';
import { Box, FormControl, FormHelperText, FormLabel } from '@mui/material';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { javascript } from '@codemirror/lang-javascript';
import { json } from '@codemirror/lang-json';
import { sql } from '@codemirror/lang-sql';
import { useInput } from 'react-admin';

/**
 * The 'code' input's CodeMirror editor (its own chunk: inputs.tsx loads it with React.lazy on first use). The value
 * lives in the form as the text typed, as the textarea it replaces keeps it.
 */

export type CodeLanguage = 'sql' | 'javascript' | 'json';

export interface CodeEditorProps {
    source: string;
    label: string;
    language: CodeLanguage;
    helperText?: string;
    isRequired?: boolean;
    disabled?: boolean;
    readOnly?: boolean;
    onChange?: () => void;
}

const LANGUAGES = { sql: () => sql(), javascript: () => javascript(), json: () => json() };

export default function CodeEditor({ source, label, language, helperText, isRequired, ...rest }: CodeEditorProps) {
    const { field, fieldState } = useInput({ source });
    const error = fieldState.error?.message;
    const locked = !!rest.disabled || !!rest.readOnly;
    const extensions = useMemo(
        () => [
            LANGUAGES[language](),
            EditorView.lineWrapping,
            // The editable area is the input a screen reader names by the label.
            EditorView.contentAttributes.of({ 'aria-label': label, spellcheck: 'false' }),
        ],
        [language, label],
    );
    return (
        <FormControl fullWidth error={!!error} sx={{ mb: 1 }} required={isRequired}>
            <FormLabel sx={{ fontSize: 13, mb: 0.5 }}>{label}</FormLabel>
            <Box
                sx={{
                    border: 1,
                    borderColor: error ? 'error.main' : 'divider',
                    borderRadius: 1,
                    overflow: 'hidden',
                    '& .cm-editor': { fontSize: 13 },
                    '& .cm-editor.cm-focused': { outline: 'none' },
                }}
            >
                <CodeMirror
                    value={typeof field.value === 'string' ? field.value : String(field.value ?? '')}
                    onChange={(text) => {
                        field.onChange(text);
                        rest.onChange?.();
                    }}
                    onBlur={field.onBlur}
                    extensions={extensions}
                    editable={!locked}
                    readOnly={locked}
                    minHeight="240px"
                    maxHeight="560px"
                    basicSetup={{ foldGutter: false, highlightActiveLine: !locked }}
                />
            </Box>
            {error || helperText ? <FormHelperText>{error ?? helperText}</FormHelperText> : null}
        </FormControl>
    );
}
