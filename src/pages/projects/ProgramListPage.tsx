import { useEffect, useState } from 'react';
import AddIcon from '@mui/icons-material/Add';
import CategoryIcon from '@mui/icons-material/Category';
import SearchIcon from '@mui/icons-material/Search';
import {
    Alert,
    Box,
    Button,
    Card,
    CardContent,
    InputAdornment,
    TextField,
    ToggleButton,
    ToggleButtonGroup,
    Typography,
} from '@mui/material';
import {
    Datagrid,
    ListContextProvider,
    Pagination,
    ResourceContextProvider,
    Title,
    useRecordContext,
} from 'react-admin';
import { useDefinition } from '../../engine/context';
import { renderField } from '../../engine/fields';
import { RowLink } from '../../engine/RowActions';
import { useUrlListController } from '../../engine/useUrlList';
import { PROGRAM_LIST, useScenes, type ProjectRow } from './api';
import { DeleteProjectButton } from './DeleteProjectButton';
import { ProjectDialog } from './ProjectDialog';
import { SceneDialog } from './SceneDialog';
import { EmptyRows } from './SimpleTable';

const COLUMNS = ['name', 'code', 'sceneName', 'productCount', 'deviceCount', 'remark', 'createTime'];
const ALL = 'all';
/** Typing pauses this long before the search goes into the URL (and the request is made). */
const SEARCH_DELAY = 400;

function Actions({ onEdit }: { label?: string; onEdit: (record: ProjectRow) => void }) {
    const record = useRecordContext<ProjectRow>();
    if (!record) return null;
    return (
        <Box sx={{ display: 'flex', gap: 0.25, alignItems: 'center' }}>
            <RowLink action={{ label: '查看', to: () => `/programOverview/${record.id}` }} record={record} />
            <Button size="small" sx={{ minWidth: 0, px: 0.75, whiteSpace: 'nowrap' }} onClick={() => onEdit(record)}>
                编辑
            </Button>
            <DeleteProjectButton />
        </Box>
    );
}

/** The name search: typed text goes to the URL after a pause; a URL change (back, a link) fills the box. */
function NameSearch({ value, onSearch }: { value: string; onSearch: (name: string) => void }) {
    const [text, setText] = useState(value);
    // Our own search comes back as the value: keep what is typed (a trailing space mid-word) unless the URL differs.
    useEffect(() => setText((typed) => (typed.trim() === value ? typed : value)), [value]);
    useEffect(() => {
        if (text.trim() === value) return;
        const timer = setTimeout(() => onSearch(text.trim()), SEARCH_DELAY);
        return () => clearTimeout(timer);
    }, [text, value, onSearch]);
    return (
        <TextField
            size="small"
            placeholder="请输入项目名称"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
                if (e.key === 'Enter') onSearch(text.trim());
            }}
            slotProps={{
                htmlInput: { 'aria-label': '项目名称', maxLength: 30 },
                input: {
                    startAdornment: (
                        <InputAdornment position="start">
                            <SearchIcon fontSize="small" />
                        </InputAdornment>
                    ),
                },
            }}
            sx={{ width: 240 }}
        />
    );
}

/**
 * /programList (SPEC.md "Projects"): scene filter (全部 and every scene, users' own included), name search, the paged
 * project table (10 a page; 5, 10, 20), 新建项目 / 编辑 in a dialog, 场景管理, 删除 with the device count. Scene,
 * search and page live in the query string (?classId=&name=&page=&perPage=).
 */
export default function ProgramListPage() {
    const definition = useDefinition();
    const options = definition.list!;
    const scenes = useScenes();
    const list = useUrlListController({
        resource: PROGRAM_LIST,
        perPage: options.perPage,
        queryFilters: { classId: 'classId', name: 'name' },
    });
    // The record stays while the dialog fades out, so its title does not flip to 新建项目 on the way.
    const [dialog, setDialog] = useState<{ open: boolean; record?: ProjectRow }>({ open: false });
    const [scenesOpen, setScenesOpen] = useState(false);

    const classId = String(list.filterValues.classId ?? '');
    const name = String(list.filterValues.name ?? '');
    const filterBy = (next: { classId?: string; name?: string }) =>
        list.setFilters({ classId: classId || undefined, name: name || undefined, ...next }, {});
    const searching = !!(classId || name);

    return (
        <Box sx={{ p: { xs: 1, md: 2 } }}>
            <Title title={definition.label} />
            <Card variant="outlined">
                <CardContent>
                    <Typography variant="h6" component="h1" sx={{ mb: 2 }}>
                        {definition.label}
                    </Typography>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5, flexWrap: 'wrap' }}>
                        <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
                            项目分类：
                        </Typography>
                        <ToggleButtonGroup
                            size="small"
                            exclusive
                            value={classId || ALL}
                            onChange={(_, next: string | null) => {
                                if (next) filterBy({ classId: next === ALL ? undefined : next });
                            }}
                            aria-label="项目分类"
                            sx={{ flexWrap: 'wrap' }}
                        >
                            <ToggleButton value={ALL}>全部</ToggleButton>
                            {(scenes.data ?? []).map((s) => (
                                <ToggleButton key={s.id} value={String(s.id)}>
                                    {s.name}
                                </ToggleButton>
                            ))}
                        </ToggleButtonGroup>
                        {scenes.error ? (
                            <Typography variant="body2" color="error">
                                场景加载失败，请刷新页面重试
                            </Typography>
                        ) : null}
                    </Box>
                    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 2, flexWrap: 'wrap' }}>
                        <NameSearch value={name} onSearch={(next) => filterBy({ name: next || undefined })} />
                        <Box sx={{ flex: 1 }} />
                        <Button variant="outlined" startIcon={<CategoryIcon />} onClick={() => setScenesOpen(true)}>
                            场景管理
                        </Button>
                        <Button variant="contained" startIcon={<AddIcon />} onClick={() => setDialog({ open: true })}>
                            {options.createLabel}
                        </Button>
                    </Box>
                    {list.error && !list.data ? (
                        <Alert
                            severity="error"
                            action={
                                <Button color="inherit" size="small" onClick={() => void list.refetch()}>
                                    重试
                                </Button>
                            }
                        >
                            项目列表加载失败：{(list.error as Error).message || '查询失败'}
                        </Alert>
                    ) : (
                        <ResourceContextProvider value={PROGRAM_LIST}>
                            <ListContextProvider value={list}>
                                <Datagrid
                                    bulkActionButtons={false}
                                    rowClick={false}
                                    empty={
                                        <EmptyRows
                                            text={searching ? '没有符合条件的项目' : (options.empty ?? '暂无数据')}
                                            hint={
                                                searching
                                                    ? '换个分类或名称再试'
                                                    : '点击右上角「新建项目」创建第一个项目'
                                            }
                                        />
                                    }
                                    sx={{ '& .RaDatagrid-headerCell': { fontWeight: 600, whiteSpace: 'nowrap' } }}
                                >
                                    {COLUMNS.map((source) => renderField(source, definition.fields[source]))}
                                    <Actions label="操作" onEdit={(record) => setDialog({ open: true, record })} />
                                </Datagrid>
                                {list.total ? <Pagination rowsPerPageOptions={options.perPageOptions} /> : null}
                            </ListContextProvider>
                        </ResourceContextProvider>
                    )}
                </CardContent>
            </Card>
            <ProjectDialog
                open={dialog.open}
                onClose={() => setDialog((d) => ({ ...d, open: false }))}
                record={dialog.record}
            />
            <SceneDialog open={scenesOpen} onClose={() => setScenesOpen(false)} />
        </Box>
    );
}
