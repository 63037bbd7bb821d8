/**
 * The sample shop's assortment: the rows of the `products` dimension table, and what users type
 * into search. Products are grouped by category (each user favours one category) and listed from
 * the most to the least popular within it.
 */

export interface Product {
  id: string
  name: string
  category: string
  brand: string
  price: number
  /** yyyy-MM-dd */
  launchedAt: string
  tags: string[]
}

type Row = [name: string, brand: string, price: number, launchedAt: string, tags: string[]]

const ASSORTMENT: Record<string, Row[]> = {
  Electronics: [
    ['Wireless earbuds', 'Soundcore', 299, '2024-03-12', ['audio', 'bestseller']],
    ['Power bank 20000 mAh', 'Anker', 159, '2023-09-01', ['charging']],
    ['Smart watch S3', 'Amazfit', 899, '2024-06-18', ['wearable', 'new']],
    ['Noise-cancelling headphones', 'Sony', 2299, '2023-11-11', ['audio', 'premium']],
    ['Mechanical keyboard', 'Keychron', 569, '2024-01-20', ['office']],
    ['Tablet 11 inch', 'Xiaomi', 2199, '2024-04-26', ['premium']],
    ['Action camera', 'DJI', 2899, '2024-09-05', ['outdoor', 'premium', 'new']],
  ],
  Fashion: [
    ['Cotton T-shirt', 'Uniqlo', 79, '2024-02-14', ['basics', 'bestseller']],
    ['Slim-fit jeans', "Levi's", 499, '2023-08-30', ['denim']],
    ['Down jacket', 'Bosideng', 1299, '2023-10-15', ['winter', 'premium']],
    ['Running shoes', 'Li-Ning', 459, '2024-03-01', ['sport', 'bestseller']],
    ['Canvas tote bag', 'Muji', 59, '2023-06-10', ['basics']],
    ['Silk scarf', 'Shanghai Tang', 699, '2024-05-20', ['gift']],
  ],
  Beauty: [
    ['Hydrating face cream', 'Proya', 189, '2024-01-08', ['skincare', 'bestseller']],
    ['Sunscreen SPF50', 'Anessa', 168, '2024-04-01', ['skincare', 'summer']],
    ['Lipstick matte red', 'Perfect Diary', 89, '2023-12-12', ['makeup']],
    ['Vitamin C serum', 'Estee Lauder', 780, '2024-02-28', ['skincare', 'premium']],
    ['Hair dryer', 'Dyson', 2999, '2023-09-18', ['premium', 'gift']],
  ],
  Home: [
    ['Memory foam pillow', 'Xiaomi', 129, '2023-07-07', ['bedroom']],
    ['Air purifier', 'Philips', 1499, '2024-03-15', ['health', 'premium']],
    ['Ceramic mug set', 'Muji', 69, '2023-05-05', ['kitchen', 'gift']],
    ['Robot vacuum', 'Roborock', 2699, '2024-05-30', ['smart home', 'premium', 'new']],
    ['Scented candle', 'Diptyque', 398, '2024-10-01', ['gift']],
    ['Bath towel set', 'Grace', 99, '2023-04-18', ['bathroom']],
  ],
  Food: [
    ['Green tea 250 g', 'Xihu', 128, '2024-03-28', ['tea', 'bestseller']],
    ['Mixed nuts gift box', 'Three Squirrels', 139, '2023-12-20', ['snacks', 'gift']],
    ['Drip coffee 30 bags', 'Saturnbird', 89, '2024-02-02', ['coffee']],
    ['Instant hotpot', 'Haidilao', 39.9, '2023-11-01', ['snacks']],
    ['Mooncake gift set', 'Wing Wah', 268, '2024-08-15', ['gift', 'seasonal']],
  ],
  Sports: [
    ['Yoga mat', 'Keep', 119, '2023-06-21', ['fitness', 'bestseller']],
    ['Adjustable dumbbells', 'Decathlon', 699, '2024-01-15', ['fitness']],
    ['Cycling helmet', 'Giant', 359, '2024-04-10', ['outdoor']],
    ['Badminton racket', 'Yonex', 880, '2023-09-09', ['racket sports', 'premium']],
    ['Camping tent', 'Naturehike', 1099, '2024-05-01', ['outdoor', 'new']],
  ],
  Books: [
    ['The Three-Body Problem', 'Chongqing Press', 68, '2023-03-01', ['fiction', 'bestseller']],
    ['Python crash course', 'Posts & Telecom Press', 99, '2023-10-10', ['programming']],
    ['Children picture book set', 'CITIC Press', 158, '2024-06-01', ['kids', 'gift']],
    ['E-reader', 'Kindle', 998, '2024-03-20', ['device', 'premium']],
  ],
  Baby: [
    ['Diapers size M 72 pcs', 'Pampers', 139, '2023-08-08', ['essentials', 'bestseller']],
    ['Baby formula 800 g', 'a2', 329, '2024-01-30', ['essentials']],
    ['Stroller', 'Goodbaby', 1899, '2024-07-12', ['premium', 'new']],
  ],
}

export const CATEGORIES = Object.keys(ASSORTMENT)

/** Category shares of the users' favourite category. */
export const CATEGORY_WEIGHTS: Record<string, number> = { Electronics: 20, Fashion: 20, Beauty: 16, Home: 14, Food: 12, Sports: 8, Books: 6, Baby: 4 }

export const PRODUCTS: Product[] = CATEGORIES.flatMap((category, c) =>
  ASSORTMENT[category].map(([name, brand, price, launchedAt, tags], i) => ({
    id: `p${c + 1}${String(i + 1).padStart(2, '0')}`,
    name,
    category,
    brand,
    price,
    launchedAt,
    tags,
  })),
)

/** What users search for, by their favourite category. */
export const KEYWORDS: Record<string, string[]> = {
  Electronics: ['earbuds', 'power bank', 'smart watch', 'headphones', 'keyboard'],
  Fashion: ['t-shirt', 'jeans', 'down jacket', 'running shoes', 'tote bag'],
  Beauty: ['face cream', 'sunscreen', 'lipstick', 'serum'],
  Home: ['pillow', 'air purifier', 'mug', 'robot vacuum'],
  Food: ['green tea', 'nuts', 'coffee', 'hotpot'],
  Sports: ['yoga mat', 'dumbbells', 'helmet', 'tent'],
  Books: ['three body', 'python', 'picture book', 'kindle'],
  Baby: ['diapers', 'formula', 'stroller'],
}
