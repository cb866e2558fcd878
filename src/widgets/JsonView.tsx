import { Box, Typography } from '@mui/material';
import type { WidgetProps } from './registry';

/** JSON text indented for reading; text that is not JSON is shown as it is. */
export function prettyJson(text: string): string {
    try {
        return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
        return text;
    }
}

/**
 * One display: a JSON document (a message's payload) as indented, selectable monospace text, with an optional
 * caption above it (the topic it travelled on). Text, never markup.
 */
export function JsonView({ text, caption }: WidgetProps & { text?: unknown; caption?: unknown }) {
    const body = prettyJson(typeof text === 'string' ? text : JSON.stringify(text ?? null));
    return (
        <Box>
            {caption ? (
                <Typography variant="body2" color="text.secondary" sx={{ mb: 1, wordBreak: 'break-all' }}>
                    {String(caption)}
                </Typography>
            ) : null}
            <Box
                component="pre"
                aria-label="消息内容"
                sx={{
                    m: 0,
                    p: 1.5,
                    maxHeight: '60vh',
                    overflow: 'auto',
                    bgcolor: 'grey.100',
                    borderRadius: 1,
                    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
                    fontSize: 13,
                    whiteSpace: 'pre-wrap',
                    wordBreak: 'break-all',
                }}
            >
                {body}
            </Box>
        </Box>
    );
}
