import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dateline, relativeDateFigures, relativeDates } from './relative-dates.ts';

test('the dateline is the one full date a text writes, in any of its forms', () => {
  assert.equal(dateline('Posted by Ann Reed on April 4, 2016\nThe ferry sailed Monday.')?.toISOString(), '2016-04-04T00:00:00.000Z');
  assert.equal(dateline('7 Sept. 2015: the orchard reopened')?.toISOString(), '2015-09-07T00:00:00.000Z');
  assert.equal(dateline('Updated 2012-11-30 08:15')?.toISOString(), '2012-11-30T00:00:00.000Z');
  // The same date twice is still one dateline; two different ones are none.
  assert.equal(dateline('May 9, 2020. Filed May 9, 2020.')?.toISOString(), '2020-05-09T00:00:00.000Z');
  assert.equal(dateline('Written on May 9, 2020 about the flood of June 3, 1998.'), undefined);
  assert.equal(dateline('The ferry sailed in 2016.'), undefined);
  assert.equal(dateline('February 30, 2019'), undefined);
});

test('a weekday counts back from the dateline in a past-tense sentence and forward in a future one', () => {
  // April 4, 2016 was a Monday.
  const page = 'Posted by Ann Reed on April 4, 2016\n';
  assert.deepEqual(relativeDates(`${page}The harbour board approved the new timetable Saturday afternoon.`), [{ year: 2016, month: 4, day: 2 }]);
  assert.deepEqual(relativeDates(`${page}The ferry crossed Monday morning.`), [{ year: 2016, month: 4, day: 4 }]);
  assert.deepEqual(relativeDates(`${page}The new timetable will start on Thursday.`), [{ year: 2016, month: 4, day: 7 }]);
  assert.deepEqual(relativeDates(`${page}The board will meet again next Monday.`), [{ year: 2016, month: 4, day: 11 }]);
  // Present tense points nowhere: nothing is resolved.
  assert.deepEqual(relativeDates(`${page}The ferry sails every Saturday.`), []);
});

test('a month without a year takes the year its tense points to; the dateline\'s own month stays open', () => {
  const page = 'November 12, 2019\n';
  assert.deepEqual(relativeDates(`${page}The first concert is scheduled for March.`), [{ year: 2020, month: 3 }]);
  assert.deepEqual(relativeDates(`${page}The bridge reopened in early August after repairs.`), [{ year: 2019, month: 8 }]);
  assert.deepEqual(relativeDates(`${page}The council voted in December to close it.`), [{ year: 2018, month: 12 }]);
  assert.deepEqual(relativeDates(`${page}The council voted in November to close it.`), []);
  assert.deepEqual(relativeDates(`${page}The exhibition opens in March.`), []);
  // A month with its day or year is written in full, not relative.
  assert.deepEqual(relativeDates(`${page}The council voted in March 2016 to close it.`), []);
});

test('yesterday, today, tomorrow and last / this / next year need no tense', () => {
  const page = 'Saturday, 1 January 2011 ·\n';
  assert.deepEqual(relativeDates(`${page}Crowds gathered yesterday. The mayor speaks today.`), [{ year: 2010, month: 12, day: 31 }, { year: 2011, month: 1, day: 1 }]);
  assert.deepEqual(relativeDates(`${page}Sales rose last year and should rise again next year.`), [{ year: 2010 }, { year: 2012 }]);
  assert.deepEqual(relativeDates(`${page}The shop closed last month.`), [{ year: 2010, month: 12 }]);
  assert.deepEqual(relativeDates(`${page}It reopens next month.`), [{ year: 2011, month: 2 }]);
});

test('nothing resolves without a single dateline, or in the sentence that writes it', () => {
  assert.deepEqual(relativeDates('The harbour board approved the timetable Saturday afternoon.'), []);
  assert.deepEqual(relativeDates('On April 4, 2016 the board met; on May 2, 2016 it voted Monday.'), []);
  assert.deepEqual(relativeDates('The board met on Monday, April 4, 2016 and approved it.'), []);
});

test('the resolved dates are figures and month names', () => {
  assert.deepEqual(relativeDateFigures('By Ann Reed on March 2, 2017\nThe panel narrowed the list Wednesday evening.'), { years: ['2017'], values: ['1'], months: ['march'] });
  assert.deepEqual(relativeDateFigures('The panel narrowed the list Wednesday evening.'), { years: [], values: [], months: [] });
});
