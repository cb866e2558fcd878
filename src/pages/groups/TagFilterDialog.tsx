import { useEffect, useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, TextField, Typography } from '@mui/material';
import { ValidationError } from 'yup';
import { groupTagFilterSchema } from '../../../schemas/group';

export interface TagFilter {
    tagKey: string;
    tagValue: string;
}

interface TagFilterDialogProps {
    open: boolean;
    value: TagFilter;
    onClose: () => void;
    onApply: (filter: TagFilter) => void;
}

/** 标签筛选: keep the group's devices that carry a tag with this key (and value). */
export function TagFilterDialog({ open, value, onClose, onApply }: TagFilterDialogProps) {
    const [tagKey, setTagKey] = useState(value.tagKey);
    const [tagValue, setTagValue] = useState(value.tagValue);
    const [errors, setErrors] = useState<Partial<TagFilter>>({});
    useEffect(() => {
        if (!open) return;
        setTagKey(value.tagKey);
        setTagValue(value.tagValue);
        setErrors({});
    }, [open, value.tagKey, value.tagValue]);

    const apply = () => {
        try {
            const checked = groupTagFilterSchema.validateSync({ tagKey, tagValue }, { abortEarly: false });
            onApply({ tagKey: checked.tagKey, tagValue: checked.tagValue ?? '' });
            onClose();
        } catch (err) {
            if (!(err instanceof ValidationError)) throw err;
            setErrors(Object.fromEntries(err.inner.map((e) => [e.path, e.message])));
        }
    };

    return (
        <Dialog open={open} onClose={onClose} fullWidth maxWidth="xs" aria-labelledby="tag-filter-title">
            <DialogTitle id="tag-filter-title">标签筛选</DialogTitle>
            <DialogContent sx={{ pt: 0 }}>
                <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
                    只显示带有此标签的设备；不填 Value 时匹配该 Key 的任意值。
                </Typography>
                <TextField
                    label="标签Key"
                    required
                    value={tagKey}
                    onChange={(e) => setTagKey(e.target.value)}
                    error={!!errors.tagKey}
                    helperText={errors.tagKey}
                    fullWidth
                    margin="dense"
                    autoFocus
                />
                <TextField
                    label="标签Value"
                    value={tagValue}
                    onChange={(e) => setTagValue(e.target.value)}
                    error={!!errors.tagValue}
                    helperText={errors.tagValue}
                    fullWidth
                    margin="dense"
                />
            </DialogContent>
            <DialogActions sx={{ px: 3, pb: 2 }}>
                <Button onClick={onClose}>取消</Button>
                <Button variant="contained" onClick={apply}>
                    确定
                </Button>
            </DialogActions>
        </Dialog>
    );
}
