import { useId, type ReactNode } from 'react';
import { Dialog, DialogActions, DialogContent, DialogTitle } from '@mui/material';
import type { DialogWidth } from '../vocabulary';

export interface EngineDialogProps {
    open: boolean;
    onClose: () => void;
    title: ReactNode;
    /** The buttons: they stay visible while the content scrolls (fits 1280 x 720). */
    actions?: ReactNode;
    width?: DialogWidth;
    children: ReactNode;
    /**
     * Wraps content and actions together in one element (a form), so a submit button in the actions submits it.
     * Its outermost element must be the dialog paper's direct child (a <form> is): the frame lays it out.
     */
    wrap?: (inner: ReactNode) => ReactNode;
}

// A wrapping form takes the paper's place as the flex column, so the content still scrolls and the actions stay.
const PAPER_SX = {
    maxHeight: 'calc(100% - 48px)',
    my: 3,
    '& > form': { display: 'flex', flexDirection: 'column', minHeight: 0, flex: '1 1 auto' },
} as const;

// Forms in a dialog stay compact: react-admin reserves a helper-text line under every input and radios carry
// 9px of padding; tightened here, a dialog of eight inputs fits a 720 px tall screen without scrolling much.
const COMPACT_SX = {
    py: 1.5,
    '& .MuiFormControl-root': { mt: 0.75, mb: 0.25 },
    '& .MuiFormHelperText-root': { mt: 0.25, lineHeight: 1.25 },
    '& .MuiRadio-root': { py: 0.5 },
} as const;

/**
 * The engine's dialog frame: title, scrolling content, fixed actions. Every dialog of the console uses it.
 * scroll="paper" with a height cap keeps the buttons on screen on a 720 px tall laptop; only the content scrolls.
 */
export function EngineDialog({ open, onClose, title, actions, width = 'sm', children, wrap }: EngineDialogProps) {
    const titleId = useId();
    const inner = (
        <>
            <DialogContent dividers sx={COMPACT_SX}>
                {children}
            </DialogContent>
            {actions ? <DialogActions sx={{ px: 3, py: 1.5 }}>{actions}</DialogActions> : null}
        </>
    );
    return (
        <Dialog
            open={open}
            onClose={onClose}
            fullWidth
            maxWidth={width}
            scroll="paper"
            aria-labelledby={titleId}
            slotProps={{ paper: { sx: PAPER_SX } }}
        >
            <DialogTitle id={titleId} sx={{ py: 1.5 }}>
                {title}
            </DialogTitle>
            {wrap ? wrap(inner) : inner}
        </Dialog>
    );
}
