import { Box, LinearProgress, Typography } from '@mui/material';

export interface ProgressProps {
    /** 0-100; undefined: running, how far unknown (a moving bar). */
    value?: number;
    /** What the bar says beside it ('65%（成功12 / 失败1 / 共20）', '正在升级…'). */
    text: string;
    /** The bar's accessible name (the field's label, the action's label). */
    label: string;
    color?: 'primary' | 'secondary' | 'success' | 'error' | 'info' | 'warning';
    width?: number;
}

const clamp = (n: number) => Math.min(100, Math.max(0, n));

/**
 * A bar with its text, one look for a progress column or description (field type 'progress') and a call action
 * while it runs. The text is the bar's aria-valuetext, so a reader hears the words, not only a number.
 */
export function ProgressBar({ value, text, label, color = 'primary', width = 120 }: ProgressProps) {
    const known = value !== undefined && Number.isFinite(value);
    return (
        <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 1, verticalAlign: 'middle' }}>
            <LinearProgress
                variant={known ? 'determinate' : 'indeterminate'}
                value={known ? clamp(value) : undefined}
                color={color}
                aria-label={label}
                aria-valuetext={text}
                sx={{ width, height: 6, borderRadius: 3, flexShrink: 0 }}
            />
            <Typography component="span" variant="body2" sx={{ whiteSpace: 'nowrap' }}>
                {text}
            </Typography>
        </Box>
    );
}
