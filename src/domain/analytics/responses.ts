/**
 * Response schemas of the analytics endpoints, exactly as SPEC "Analytics endpoints" names
 * them (camelCase; rankings and trends are bare arrays). src/services/analytics writes them.
 */
import { arr, component, date, doc, int, num, numN, obj, str, strN, uuidN } from '../contract.js';

const percent = () => doc(numN(), 'Percent change against the earlier figure, 2 decimals; null when the earlier figure is 0');

export const revenue = component('AnalyticsRevenue', obj({ totalRevenue: doc(num(), 'Merchandise subtotal of the counted orders'), currencyCode: str() }));
export const revenueTrend = doc(arr(component('AnalyticsRevenueMonth', obj({ date: doc(date(), 'First day of the UTC month'), revenue: num() }))), 'One entry per UTC month of the range, months without orders as 0');
export const ordersTrend = doc(arr(component('AnalyticsOrdersMonth', obj({ date: doc(date(), 'First day of the UTC month'), orderCount: int() }))), 'One entry per UTC month of the range, months without orders as 0');
export const ordersMonthToDate = component('AnalyticsOrdersMonthToDate', obj({ count: int(), previousMonthCount: int(), percentChange: percent() }));
export const averageOrderValue = component('AnalyticsAverageOrderValue', obj({ averageOrderValue: doc(num(), '0 without orders'), currencyCode: str() }));
export const activeCustomers = component('AnalyticsActiveCustomers', obj({ activeCustomers: int(), percentChange: percent() }));
export const topProducts = arr(
  component(
    'AnalyticsTopProduct',
    obj({ productId: doc(uuidN(), 'Null when no product has the sku any more'), sku: str(), name: doc(strN(), 'Current product name, else the last one recorded'), revenue: num(), unitsOrdered: int() }),
  ),
);
export const topCustomers = arr(component('AnalyticsTopCustomer', obj({ customerNumber: str(), companyName: strN(), revenue: num(), orderCount: int() })));
export const topCategories = arr(
  component('AnalyticsTopCategory', obj({ categoryId: doc(uuidN(), 'Null for products without a category'), name: doc(str(), 'Uncategorized when categoryId is null'), revenue: num() })),
);
export const topSalesReps = arr(
  component('AnalyticsTopSalesRep', obj({ salesRepNumber: doc(strN(), 'Null for orders without a primary sales rep'), name: doc(strN(), 'Unassigned when salesRepNumber is null'), revenue: num(), orderCount: int() })),
);
