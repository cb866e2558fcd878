/** maplibre's own labels (canvas name, zoom buttons), in Chinese. */
export const MAP_LOCALE = {
    'Map.Title': '地图',
    'NavigationControl.ZoomIn': '放大',
    'NavigationControl.ZoomOut': '缩小',
    'NavigationControl.ResetBearing': '重置方向',
    'Popup.Close': '关闭',
    'Marker.Title': '标记',
    'CooperativeGesturesHandler.WindowsHelpText': '按住 Ctrl 键并滚动鼠标以缩放地图',
    'CooperativeGesturesHandler.MacHelpText': '按住 ⌘ 键并滚动鼠标以缩放地图',
    'CooperativeGesturesHandler.MobileHelpText': '使用双指移动地图',
};
