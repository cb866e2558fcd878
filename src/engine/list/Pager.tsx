import { useState } from 'react';
import { Box, MenuItem, Pagination, TextField, Typography } from '@mui/material';

export interface PagerProps {
    page: number;
    perPage: number;
    total: number;
    onPage: (page: number) => void;
    /** Absent: a fixed page size. */
    onPerPage?: (perPage: number) => void;
    perPageOptions?: number[];
    /** Shows 跳至 N 页 (SPEC.md: the group pages have a quick jumper). */
    jumper?: boolean;
}

/** The one pager of every list: total, page numbers, a size changer and, when declared, a quick jumper. */
export function Pager({ page, perPage, total, onPage, onPerPage, perPageOptions = [], jumper }: PagerProps) {
    const [target, setTarget] = useState('');
    const pages = Math.max(1, Math.ceil(total / perPage));
    const jump = () => {
        const n = Number(target);
        if (Number.isInteger(n) && n >= 1) onPage(Math.min(n, pages));
        setTarget('');
    };
    return (
        <Box
            component="nav"
            aria-label="分页"
            sx={{
                display: 'flex',
                alignItems: 'center',
                justifyContent: 'flex-end',
                flexWrap: 'wrap',
                gap: 2,
                py: 1.5,
                // Inside a list's card: the last word (页) keeps off the card's edge.
                px: 2,
            }}
        >
            <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
                共 {total} 条
            </Typography>
            <Pagination
                page={Math.min(page, pages)}
                count={pages}
                onChange={(_, n) => onPage(n)}
                shape="rounded"
                size="small"
                color="primary"
                getItemAriaLabel={(type, n) =>
                    type === 'page' ? `第 ${n} 页` : type === 'next' ? '下一页' : type === 'previous' ? '上一页' : type
                }
            />
            {onPerPage && perPageOptions.length > 0 ? (
                <TextField
                    select
                    size="small"
                    value={perPage}
                    onChange={(e) => onPerPage(Number(e.target.value))}
                    fullWidth={false}
                    margin="none"
                    slotProps={{ htmlInput: { 'aria-label': '每页条数' } }}
                    sx={{ width: 112, flex: 'none' }}
                >
                    {perPageOptions.map((n) => (
                        <MenuItem key={n} value={n}>
                            {n} 条/页
                        </MenuItem>
                    ))}
                </TextField>
            ) : null}
            {jumper ? (
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flex: 'none', whiteSpace: 'nowrap' }}>
                    <Typography variant="body2">跳至</Typography>
                    <TextField
                        size="small"
                        fullWidth={false}
                        margin="none"
                        sx={{ width: 64 }}
                        value={target}
                        onChange={(e) => setTarget(e.target.value.replace(/\D/g, ''))}
                        onKeyDown={(e) => {
                            if (e.key === 'Enter') jump();
                        }}
                        onBlur={() => target && jump()}
                        slotProps={{
                            htmlInput: { 'aria-label': '跳至页码', inputMode: 'numeric' },
                        }}
                    />
                    <Typography variant="body2">页</Typography>
                </Box>
            ) : null}
        </Box>
    );
}
