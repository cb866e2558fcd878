/** A product as GET /api/product/detail answers it (docs/platform-api.md "Products"). */
export interface Product {
    id: number;
    productId: number;
    productName: string;
    productKey: string;
    nodeType: number;
    gatewayType?: number | null;
    categoryId?: number | null;
    categoryName?: string | null;
    networkType?: number | null;
    networkName?: string | null;
    dataType?: number | null;
    projectCode?: string | null;
    projectName?: string | null;
    remark?: string | null;
    createTime?: string | null;
}

export const TABS = ['view', 'topic', 'function'] as const;
export type ProductTab = (typeof TABS)[number];

export const TAB_LABELS: Record<ProductTab, string> = {
    view: '产品信息',
    topic: 'Topic类列表',
    function: '功能定义',
};
