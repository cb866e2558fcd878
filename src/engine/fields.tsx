import { useState, type ComponentType, type MouseEvent, type ReactElement } from 'react';
import { Box, Button, Chip, IconButton, Tooltip, Typography } from '@mui/material';
import dayjs from 'dayjs';
import { useLocation } from 'react-router-dom';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { BooleanField, Link, ReferenceField, TextField, useNotify, useRecordContext } from 'react-admin';
import { copyText } from './actions/copy';
import { ProgressBar } from './Progress';
import { referencePath } from './context';
import { timeRangeText } from './timeRange';
import type { FieldDefinition, FieldType, InputKind } from './types';

export interface DisplayProps {
    source: string;
    field: FieldDefinition;
    /** Read by Datagrid for the column header. */
    label?: string;
    sortable?: boolean;
}

type Row = Record<string, unknown>;

const isBlank = (v: unknown) => v === undefined || v === null || v === '';

const Blank = () => (
    <Typography component="span" variant="body2" color="text.disabled">
        -
    </Typography>
);

/**
 * Long names (deviceName, productName) wrap between words, and inside a word only when it cannot fit a line
 * of its own: a column grows to the longest word instead of cutting names in two.
 */
const WRAP = { overflowWrap: 'break-word', wordBreak: 'normal' } as const;

const TextDisplay = ({ source }: DisplayProps) => <TextField source={source} emptyText="-" sx={WRAP} />;

const LongTextDisplay = ({ source }: DisplayProps) => (
    <TextField source={source} emptyText="-" sx={{ ...WRAP, whiteSpace: 'pre-wrap' }} />
);

/** A number as `field.number` says: grouping (default on), a fixed count of decimals, a unit appended as written. */
export function formatNumber(value: unknown, spec: FieldDefinition['number'] = {}): string {
    const n = typeof value === 'number' ? value : Number(value);
    if (!Number.isFinite(n)) return String(value);
    const text = n.toLocaleString('zh-CN', {
        useGrouping: spec.grouping ?? true,
        ...(spec.decimals !== undefined
            ? { minimumFractionDigits: spec.decimals, maximumFractionDigits: spec.decimals }
            : {}),
    });
    return spec.unit ? `${text}${spec.unit}` : text;
}

const NumberDisplay = ({ source, field }: DisplayProps) => {
    const value = useRecordContext<Row>()?.[source];
    if (isBlank(value)) return <Blank />;
    return (
        <Typography component="span" variant="body2" sx={{ whiteSpace: 'nowrap' }}>
            {formatNumber(value, field.number)}
        </Typography>
    );
};

const DateDisplay = ({ source, field }: DisplayProps) => {
    const value = useRecordContext<Row>()?.[source];
    if (isBlank(value)) return <Blank />;
    const parsed = dayjs(value as string | number);
    const text = field.format && parsed.isValid() ? parsed.format(field.format) : String(value);
    return (
        <Typography component="span" variant="body2" sx={{ whiteSpace: 'nowrap' }}>
            {text}
        </Typography>
    );
};

const BooleanDisplay = ({ source }: DisplayProps) => <BooleanField source={source} />;

function choiceOf(field: FieldDefinition, value: unknown) {
    return field.choices?.find((c) => String(c.id) === String(value));
}

const SelectDisplay = ({ source, field }: DisplayProps) => {
    const value = useRecordContext<Row>()?.[source];
    if (isBlank(value)) return <Blank />;
    return (
        <Typography component="span" variant="body2">
            {choiceOf(field, value)?.name ?? String(value)}
        </Typography>
    );
};

const StatusDisplay = ({ source, field }: DisplayProps) => {
    const value = useRecordContext<Row>()?.[source];
    if (isBlank(value)) return <Blank />;
    const choice = choiceOf(field, value);
    return <Chip size="small" label={choice?.name ?? String(value)} color={choice?.color ?? 'default'} />;
};

const ReferenceDisplay = ({ source, field }: DisplayProps) =>
    field.reference ? (
        <ReferenceField source={source} reference={referencePath(field.reference)} link="show" emptyText="-">
            {field.optionText ? <TextField source={field.optionText} /> : undefined}
        </ReferenceField>
    ) : (
        <TextDisplay source={source} field={field} />
    );

/** Whether `to` is the page being shown (its path, or a tab below it): a link there would go nowhere. */
export function isHere(to: string, pathname: string): boolean {
    const path = to.split(/[?#]/)[0].replace(/\/+$/, '');
    const here = pathname.replace(/\/+$/, '');
    return !!path && (here === path || here.startsWith(`${path}/`));
}

const LinkDisplay = ({ source, field }: DisplayProps) => {
    const record = useRecordContext<Row>();
    const { pathname } = useLocation();
    const value = record?.[source];
    if (!record || isBlank(value)) return <Blank />;
    // A record's name on its own page (基本信息 of /ota/package/7) is text, not a link to where the person is.
    if (!field.linkTo || isHere(field.linkTo(record), pathname))
        return (
            <Typography component="span" variant="body2" sx={WRAP}>
                {String(value)}
            </Typography>
        );
    return (
        <Link to={field.linkTo(record)} onClick={(e: MouseEvent) => e.stopPropagation()} sx={WRAP}>
            {String(value)}
        </Link>
    );
};

const PasswordDisplay = ({ source }: DisplayProps) => {
    const value = useRecordContext<Row>()?.[source];
    return isBlank(value) ? <Blank /> : <span>******</span>;
};

/** A secret shown as ****** until 显示 is clicked (descriptions of a device secret). */
const MaskedDisplay = ({ source, field }: DisplayProps) => {
    const value = useRecordContext<Row>()?.[source];
    const [shown, setShown] = useState(false);
    if (isBlank(value)) return <Blank />;
    // A password's own display is ****** again: revealed, a secret reads as text.
    const type = fieldTypeOf(field);
    const Display = type === 'password' ? TextDisplay : fieldKind(type).Display;
    return (
        <Typography component="span" variant="body2" sx={{ display: 'inline-flex', alignItems: 'center', gap: 1 }}>
            {shown ? (
                <Display source={source} field={field} />
            ) : (
                <span aria-label={`${field.label}已隐藏`}>******</span>
            )}
            <Button
                size="small"
                sx={{ minWidth: 0, p: 0, lineHeight: 1.2 }}
                onClick={(e: MouseEvent) => {
                    e.stopPropagation();
                    setShown(!shown);
                }}
            >
                {shown ? '隐藏' : '显示'}
            </Button>
        </Typography>
    );
};

/** A point: its address when the record has one, else "lng, lat" (from `position`'s fields or the value 'lng,lat'). */
const PositionDisplay = ({ source, field }: DisplayProps) => {
    const record = useRecordContext<Row>();
    if (!record) return null;
    const spec = field.position;
    const address = spec?.address ? record[spec.address] : undefined;
    const lng = spec ? record[spec.longitude] : undefined;
    const lat = spec ? record[spec.latitude] : undefined;
    const own = record[source];
    const text = !isBlank(address)
        ? String(address)
        : !isBlank(lng) && !isBlank(lat)
          ? `${String(lng)}, ${String(lat)}`
          : !isBlank(own)
            ? String(own).replace(/\s*,\s*/, ', ')
            : '';
    if (!text) return <Blank />;
    return (
        <Typography component="span" variant="body2" sx={WRAP}>
            {text}
        </Typography>
    );
};

/** A bar with its text (type 'progress'): `progress.value` / `text` / `color` from the record, else the value as a percentage. */
const ProgressDisplay = ({ source, field }: DisplayProps) => {
    const record = useRecordContext<Row>();
    if (!record) return null;
    const raw = field.progress?.value ? field.progress.value(record) : record[source];
    if (isBlank(raw) && !field.progress?.text) return <Blank />;
    const value = isBlank(raw) ? undefined : Number(raw);
    const text = field.progress?.text?.(record) ?? `${Math.round(value ?? 0)}%`;
    return <ProgressBar value={value} text={text} label={field.label} color={field.progress?.color?.(record)} />;
};

/** A time range (type 'timeRange'): 08:00–18:00, or 22:00–次日 06:00 when it crosses midnight. */
const TimeRangeDisplay = ({ source }: DisplayProps) => {
    const text = timeRangeText(useRecordContext<Row>()?.[source]);
    if (!text) return <Blank />;
    return (
        <Typography component="span" variant="body2" sx={{ whiteSpace: 'nowrap' }}>
            {text}
        </Typography>
    );
};

const RenderDisplay = ({ field }: DisplayProps) => {
    const record = useRecordContext<Row>();
    if (!record || !field.render) return null;
    // Text a render answers reads like every other value; elements keep their own look.
    const shown = field.render(record);
    return typeof shown === 'string' || typeof shown === 'number' ? (
        <Typography component="span" variant="body2" sx={WRAP}>
            {shown}
        </Typography>
    ) : (
        <>{shown}</>
    );
};

export function fieldTypeOf(field: FieldDefinition): FieldType {
    return field.type ?? (field.reference ? 'reference' : field.choices ? 'select' : 'text');
}

/**
 * The one switch: a field's type decides how it is displayed (list, show) and which input edits it unless the
 * definition names another. A new field type is one case here.
 */
export function fieldKind(type: FieldType): { Display: ComponentType<DisplayProps>; input: InputKind } {
    switch (type) {
        case 'text':
            return { Display: TextDisplay, input: 'text' };
        case 'longText':
            return { Display: LongTextDisplay, input: 'textarea' };
        case 'position':
            return { Display: PositionDisplay, input: 'widget' };
        case 'number':
            return { Display: NumberDisplay, input: 'number' };
        case 'datetime':
            return { Display: DateDisplay, input: 'datetime' };
        case 'date':
            return { Display: DateDisplay, input: 'date' };
        case 'boolean':
            return { Display: BooleanDisplay, input: 'boolean' };
        case 'select':
            return { Display: SelectDisplay, input: 'select' };
        case 'status':
            return { Display: StatusDisplay, input: 'select' };
        case 'reference':
            return { Display: ReferenceDisplay, input: 'reference' };
        case 'cascader':
            return { Display: TextDisplay, input: 'cascader' };
        case 'link':
            return { Display: LinkDisplay, input: 'text' };
        case 'password':
            return { Display: PasswordDisplay, input: 'password' };
        case 'progress':
            return { Display: ProgressDisplay, input: 'none' };
        case 'timeRange':
            return { Display: TimeRangeDisplay, input: 'timeRange' };
    }
}

export function inputKindOf(field: FieldDefinition): InputKind {
    return field.input ?? fieldKind(fieldTypeOf(field)).input;
}

const displayOf = (field: FieldDefinition): ComponentType<DisplayProps> =>
    field.render ? RenderDisplay : field.masked ? MaskedDisplay : fieldKind(fieldTypeOf(field)).Display;

/** The value with a copy button beside it (field.copy): says 复制成功, or how to copy by hand. */
const CopyDisplay = ({ source, field }: DisplayProps) => {
    const value = useRecordContext<Row>()?.[source];
    const notify = useNotify();
    const Display = displayOf({ ...field, copy: false });
    // Nothing to copy: what the field's render says about the missing value (or —), without a copy button.
    if (isBlank(value)) return field.render ? <Display source={source} field={field} /> : <Blank />;
    const copy = async (e: MouseEvent) => {
        e.stopPropagation();
        const done = await copyText(String(value));
        const text = done ? '复制成功' : '复制失败，请手动选择复制';
        notify(text, { type: done ? 'success' : 'warning', messageArgs: { _: text } });
    };
    return (
        <Typography component="span" variant="body2" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}>
            <Display source={source} field={field} />
            <Tooltip title={`复制 ${field.label}`}>
                <IconButton size="small" aria-label={`复制 ${field.label}`} onClick={copy}>
                    <ContentCopyIcon fontSize="inherit" />
                </IconButton>
            </Tooltip>
        </Typography>
    );
};

/** One line cut with … past `field.ellipsis` px; the whole value is the cell's title (a tooltip). */
const EllipsisDisplay = ({ source, field }: DisplayProps) => {
    const record = useRecordContext<Row>();
    const value = record && field.render ? field.render(record) : record?.[source];
    const Display = field.copy ? CopyDisplay : displayOf(field);
    return (
        <Box
            component="span"
            title={isBlank(value) || typeof value === 'object' ? undefined : String(value)}
            sx={{
                display: 'block',
                maxWidth: field.ellipsis,
                overflow: 'hidden',
                textOverflow: 'ellipsis',
                whiteSpace: 'nowrap',
                '& *': { whiteSpace: 'nowrap' },
            }}
        >
            <Display source={source} field={field} />
        </Box>
    );
};

/**
 * The display element for one field; Datagrid reads `label`, `source` and `sortable` from it for the header.
 * `where`: a table cell ('cell': lists, pickers, streams) or a description ('detail', default); `ellipsis` cuts
 * cells only, a description shows the whole value.
 */
export function renderField(source: string, field: FieldDefinition, where: 'cell' | 'detail' = 'detail'): ReactElement {
    const Display = field.ellipsis && where === 'cell' ? EllipsisDisplay : field.copy ? CopyDisplay : displayOf(field);
    return (
        <Display key={source} source={source} field={field} label={field.label} sortable={field.sortable ?? false} />
    );
}
