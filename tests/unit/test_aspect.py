"""The rule's readings in wordings of my own: changes under way and scoped exceptions
(atma/aspect.py), supersession said with other verbs, and their near misses.

Every pair here was written for this test (own people, habits and phrasings), not taken from the
audit generator's templates. Four batches: 53 pairs written before the aspect readings were
built and used to build them; 40 written after as a check (then looked at; three readings were
added for them); 38 of supersession in other verbs ("handed in my badge", "lowered my dose",
"quit smoking"), written to find the rule's gaps; and a mixed batch of 40 written after the rule
was frozen for it (the rule of 91d3911 read 24 right, this one 29 on the first run; then looked
at and used, so it is own data now, not a held-out figure). The topic score beside each pair is
the packaged MiniLM cosine of the two texts, as the rule Judge gets it in the loop. Pairs the
rule still misses are strict xfails, so the limits stay visible: a change said through its
circumstances ("Half my boxes are already at the new place"), a change at a low topic score with
nothing shared, an exception with no shared word or family ("champagne at weddings" / "I don't
drink alcohol"), a situation said with "when" or "but" alone ("When I have a cold, it's ginger tea
every time": LoCoMo's talk is full of those, and reading them scoped 67 of its same-speaker pairs
that state nothing of the kind), someone else acting on the speaker's state ("They scrapped the
7:15"), words of one family the rule's tables lack ("joined a different parish" / "church").
"""

from __future__ import annotations

import doctest

import pytest

import atma.aspect
from atma.aspect import scope_cue, under_way
from atma.judge import fallback_verdict
from atma.protocols import GateScore
from atma.records import Record

MISS = pytest.mark.xfail(strict=True, reason="wording the rule does not read yet")

PAIRS = [
    ('Ines', 'I eat meat most days.', "I've been cutting back on meat for a few weeks now, aiming to be fully vegetarian by spring.", 'transition', 0.58),
    pytest.param('Jon', 'I live in Denver.', 'Half my boxes are already at the new place in Austin, the rest follow next week.', 'transition', 0.27, marks=MISS),  # read as none
    ('Kit', 'I play the violin in a quartet.', "I'm starting to switch from violin to viola, still getting used to the alto clef.", 'transition', 0.53),
    ('Lou', 'I drink four coffees a day.', 'Down to two coffees a day so far, working towards none.', 'transition', 0.73),
    ('Mo', 'I use Windows on my home computer.', "I'm in the middle of migrating my home computer from Windows to Linux.", 'transition', 0.61),
    ('Nia', 'We speak English at home.', "We're slowly switching to Spanish at home for the kids.", 'transition', 0.56),
    ('Oz', 'My go-to drink is lager.', "Lately I've been drifting from lager towards stouts, more and more each week.", 'transition', 0.64),
    ('Pia', 'I commute by car.', "I've started biking to work two days a week, with the goal of ditching the car for my commute entirely.", 'transition', 0.65),
    ('Quin', 'I teach full-time at the high school.', "I'm moving to part-time teaching over the next term, cutting one day at a time.", 'transition', 0.66),
    ('Rae', 'Our team tracks tickets in Jira.', "We're in the process of moving our tickets from Jira to Linear.", 'transition', 0.7),
    ('Sol', 'I smoke about a pack a day.', "I'm on nicotine patches now and down to five cigarettes a day, getting there.", 'transition', 0.64),
    pytest.param('Tam', 'I live with my parents.', 'Been moving my stuff into my own flat bit by bit this month.', 'transition', 0.15, marks=MISS),  # read as none
    ('Uma', 'I study law at Leeds.', "I'm partway through transferring from law to economics, the paperwork goes through in June.", 'transition', 0.43),
    ('Vic', 'I bank with Barclays.', "I've begun moving my accounts from Barclays over to Monzo, about halfway done.", 'transition', 0.62),
    pytest.param('Wes', "I'm vegan.", "I've started reintroducing fish, one meal a week for now, and plan to add more.", 'transition', 0.28, marks=MISS),  # read as none
    ('Xan', "I'm training for a marathon.", "I'm winding down my marathon training and shifting my focus to triathlon over the next few months.", 'transition', 0.76),
    ('Yul', 'I work nights at the hospital.', "I'm in the middle of a changeover from nights to day shifts, two more weeks to go.", 'transition', 0.56),
    ('Zed', 'I write my novels by hand.', "I'm learning to draft on a laptop instead of by hand, it's slow going but I'm getting used to it.", 'transition', 0.44),
    ('Ada', 'I run 20 km a week.', "I'm building my running back up after the injury, currently at 8 km a week and adding a bit each week.", 'transition', 0.58),
    pytest.param('Bo', 'My kids go to Hillside Primary.', 'The kids are switching schools from Hillside to Oakfield, the older one moves first, the younger one after Easter.', 'transition', 0.57, marks=MISS),  # read as supersede
    ('Cy', "I'm a sales rep at Acme.", "I'm handing over my sales accounts at Acme this month before I start in marketing.", 'transition', 0.79),
    ('Di', 'I cook every evening.', "I'm gradually handing the cooking over to my partner, I only cook twice a week now.", 'transition', 0.69),
    ('Ed', "I'm learning French.", "I've been phasing French out of my study time in favour of Japanese.", 'transition', 0.58),
    ('Flo', 'I sleep about 6 hours a night.', "I'm shifting my bedtime earlier, at about 7 hours now and aiming for 8.", 'transition', 0.47),
    ('Gil', 'My hair is long.', "I've been growing my hair out short... I mean cutting it shorter in stages, it's at shoulder length now.", 'transition', 0.65),
    ('Hana', "I'm vegetarian.", "The one exception is my grandma's fish stew at Christmas.", 'scoped_exception', 0.28),
    ('Ivo', 'I go to bed around 11.', 'On Fridays I stay up till 1 or so.', 'scoped_exception', 0.53),
    pytest.param('Jas', 'I work from home.', 'Tuesdays and Thursdays I go into the office.', 'scoped_exception', 0.35, marks=MISS),  # read as none
    pytest.param('Kai', "I don't drink alcohol.", "I'll have a glass of champagne at weddings, and that's it.", 'scoped_exception', 0.36, marks=MISS),  # read as none
    ('Lin', 'I cycle to work.', 'When the roads are icy I take the tram instead of cycling.', 'scoped_exception', 0.4),
    ('Max', 'I run in the mornings.', 'In the heat of July I move my runs to the evening.', 'scoped_exception', 0.61),
    ('Ned', "I'm gluten-free.", "I make an exception for my mum's birthday cake.", 'scoped_exception', 0.15),
    ('Ola', 'I wake up at 6.', 'Weekends are for sleeping in until 9.', 'scoped_exception', 0.47),
    ('Pat', 'I take the bus to work.', "If I'm running late I grab a taxi instead.", 'scoped_exception', 0.47),
    ('Rio', 'I speak English at work.', "With my Madrid colleagues it's Spanish, though.", 'scoped_exception', 0.36),
    pytest.param('Sam', 'I drink my coffee black.', "After dinner I'll take it with a splash of cream.", 'scoped_exception', 0.29, marks=MISS),  # read as none
    pytest.param('Tia', 'I swim three times a week.', 'During exam season it drops to once a week.', 'scoped_exception', 0.27, marks=MISS),  # read as none
    ('Udo', 'I never eat sugar.', 'Birthdays are my cheat days, cake included.', 'scoped_exception', 0.15),
    ('Val', "I'm a morning person.", "Saturdays excepted - that's my lie-in day.", 'scoped_exception', 0.26),
    pytest.param('Wyn', 'I use my phone for everything.', 'For long emails I still need the laptop.', 'scoped_exception', 0.34, marks=MISS),  # read as none
    pytest.param('Xia', 'My favourite tea is green tea.', "When I have a cold, it's ginger tea every time.", 'scoped_exception', 0.62, marks=MISS),  # read as none
    ('Yan', 'I walk the dog at 7.', "On school days it's more like 6:30.", 'scoped_exception', 0.39),
    pytest.param('Zoe', "I drive to my parents' place.", 'For the winter visits we take the train though.', 'scoped_exception', 0.3, marks=MISS),  # read as none
    ('Ines', 'I eat meat most days.', 'My sister is slowly going vegetarian.', 'none', 0.47),
    ('Jon', 'I live in Denver.', 'Thinking about maybe moving to Austin one day.', 'none', 0.25),
    ('Kit', 'I play the violin in a quartet.', 'Our quartet is slowly learning a new Haydn piece.', 'none', 0.41),
    ('Lou', 'I drink four coffees a day.', 'Had my four coffees today, as always.', 'none', 0.78),
    ('Mo', 'I use Windows on my home computer.', 'My brother is halfway through moving his laptop to Linux.', 'none', 0.33),
    ('Hana', "I'm vegetarian.", 'My brother makes an exception for bacon, funny guy.', 'none', 0.42),
    ('Jas', 'I work from home.', 'Working from home again today, love it.', 'none', 0.59),
    ('Max', 'I run in the mornings.', 'Did my morning run by the river, beautiful sunrise.', 'none', 0.43),
    ('Sol', 'I smoke about a pack a day.', 'Should I try to quit smoking? Everyone says so.', 'none', 0.54),
    ('Quin', 'I teach full-time at the high school.', 'Grading essays all weekend, the usual.', 'none', 0.22),
    pytest.param('Aiko', 'I take the train to the office.', "I'm gradually switching over to cycling in, three days out of five so far.", 'transition', 0.21, marks=MISS),  # read as none
    ('Bram', 'I eat dinner at 9.', "We're shifting dinner earlier bit by bit, it's at 8 now and we want 7.", 'transition', 0.52),
    ('Cleo', 'I work at the bakery on Elm Street.', "I'm working out my notice at the bakery, two more weeks to go before the new job.", 'transition', 0.6),
    pytest.param('Dov', 'My phone is an iPhone.', "I'm switching to an Android, still moving my photos across.", 'transition', 0.39, marks=MISS),  # read as none
    ('Esa', 'I lift weights five days a week.', "I'm easing off the weights, down to three days a week for now, with more yoga instead.", 'transition', 0.64),
    ('Fen', "I'm a freelance designer.", "I'm slowly moving from freelance work to a staff job, half my clients are already handed over.", 'transition', 0.6),
    ('Gwen', 'I drink whole milk.', "We're phasing out whole milk in favour of oat milk, one carton at a time.", 'transition', 0.5),
    pytest.param('Hugo', 'My band plays rock covers.', "The band's moving toward original songs, we've swapped out half the covers so far.", 'transition', 0.53, marks=MISS),  # read as supersede
    ('Ivy', 'I read mostly thrillers.', "Lately I'm drifting away from thrillers toward history books, more and more.", 'transition', 0.77),
    ('Jude', 'I weigh 95 kilos.', 'Down to 88 kilos so far, aiming for 80 by summer.', 'transition', 0.52),
    ('Kofi', "I'm teetotal.", 'The only time I drink is a toast at a wedding.', 'scoped_exception', 0.28),
    ('Lena', 'I walk to work.', 'On rainy days I take the bus instead.', 'scoped_exception', 0.38),
    pytest.param('Mika', 'I do my shopping at Aldi.', 'For wine I go to the little shop on the corner, though.', 'scoped_exception', 0.47, marks=MISS),  # read as none
    ('Nils', 'I start work at 8.', "On Mondays it's more like 7, for the team call.", 'scoped_exception', 0.39),
    ('Omar', "I don't eat red meat.", "My one exception is my dad's barbecue in August.", 'scoped_exception', 0.26),
    pytest.param('Pilar', 'I keep my phone on silent.', "When I'm on call it stays on loud.", 'scoped_exception', 0.65, marks=MISS),  # read as none
    ('Rory', 'I train at the gym downtown.', 'In the summer months I train in the park instead.', 'scoped_exception', 0.56),
    ('Sina', 'I sleep eight hours a night.', "During crunch weeks it's more like five hours a night.", 'scoped_exception', 0.42),
    ('Tove', 'I answer emails only in the mornings.', 'Fridays are the exception, I clear my inbox in the afternoon.', 'scoped_exception', 0.5),
    ('Ugo', 'I write in English at work.', 'With the Milan office I switch to Italian.', 'scoped_exception', 0.33),
    ('Aiko', 'I take the train to the office.', "On Fridays we have cake at the office, it's the best.", 'none', 0.35),
    ('Bram', 'I eat dinner at 9.', 'Dinner tonight was lasagne, so good.', 'none', 0.3),
    ('Cleo', 'I work at the bakery on Elm Street.', "When it's busy the queue goes out the door!", 'none', 0.14),
    ('Dov', 'My phone is an iPhone.', 'My brother is slowly switching to an Android.', 'none', 0.33),
    ('Esa', 'I lift weights five days a week.', 'Do you lift on weekends too?', 'none', 0.67),
    ('Fen', "I'm a freelance designer.", 'I might move to a staff job someday, who knows.', 'none', 0.5),
    ('Gwen', 'I drink whole milk.', 'My kids drink oat milk on weekdays, funny kids.', 'none', 0.49),
    ('Hugo', 'My band plays rock covers.', 'We played the pub on Saturday, packed house.', 'none', 0.19),
    ('Ivy', 'I read mostly thrillers.', "At the beach I read whatever's lying around, it was fun last week.", 'none', 0.42),
    ('Kofi', "I'm teetotal.", "My friends drink at weddings, I'm the designated driver.", 'none', 0.27),
    ('Lena', 'I walk to work.', 'You should take the bus when it rains!', 'none', 0.34),
    ('Mika', 'I do my shopping at Aldi.', "Aldi's opening a new store in the spring.", 'none', 0.7),
    ('Nils', 'I start work at 8.', 'I love mornings in the summer, the light is great.', 'none', 0.19),
    ('Omar', "I don't eat red meat.", 'On weekends I go hiking with my cousins.', 'none', 0.11),
    ('Pilar', 'I keep my phone on silent.', 'My phone is so old, the battery barely lasts.', 'none', 0.39),
    ('Rory', 'I train at the gym downtown.', 'The gym downtown is packed on Mondays, though.', 'none', 0.64),
    ('Sina', 'I sleep eight hours a night.', 'I had a weird dream about exams last night.', 'none', 0.27),
    ('Tove', 'I answer emails only in the mornings.', 'In the afternoons I usually go for a walk, though.', 'none', 0.43),
    ('Ugo', 'I write in English at work.', "I'm slowly learning Italian, three lessons so far.", 'none', 0.22),
    ('Jude', 'I weigh 95 kilos.', 'Went for a long run in the rain, felt great.', 'none', 0.09),
    # supersession in wordings of my own (written to find the rule's gaps, then used to close some)
    ('Abe', 'I work at Google.', 'Handed in my badge at Google on Friday; Monday I start at a small startup.', 'supersede', 0.35),
    ('Bea', 'I live in Lyon.', "We've packed up the Lyon flat for good and settled in Grenoble.", 'supersede', 0.54),
    ('Cal', 'I drive a Honda Civic.', "Sold the Civic last month, I'm driving a Tesla now.", 'supersede', 0.72),
    ('Dana', "I'm allergic to penicillin.", 'Turns out I was never allergic to penicillin, the test was a false positive.', 'supersede', 0.79),
    ('Eve', 'My username is eve_88.', "I renamed my account, it's evelyn_k now.", 'supersede', 0.54),
    pytest.param('Finn', "I'm single.", 'Big news, I got engaged to Maya last weekend!', 'supersede', 0.26, marks=MISS),  # read as none
    ('Gia', 'My favourite band is Blur.', 'These days Pulp has overtaken Blur as my favourite band.', 'supersede', 0.75),
    ('Hank', 'I play bass in a band.', 'I left the band, so no more bass for me.', 'supersede', 0.66),
    ('Ida', 'I take 20 mg of the medication daily.', 'The doctor upped my dose to 40 mg a day.', 'supersede', 0.78),
    ('Joe', "I'm a Chelsea fan.", "After this season I've given up on Chelsea, I support Arsenal now.", 'supersede', 0.74),
    pytest.param('Kay', 'My rent is 900 a month.', "The landlord raised the rent, it's 1,050 a month from this month.", 'supersede', 0.62, marks=MISS),  # read as none
    ('Leo', "I'm vegetarian.", 'I started eating chicken again last month.', 'supersede', 0.44),
    ('Mae', 'I use Spotify.', 'Cancelled Spotify and moved everything to Apple Music.', 'supersede', 0.53),
    ('Ned', "I'm studying medicine.", "I dropped out of medicine and I'm doing nursing instead.", 'supersede', 0.56),
    ('Ora', 'I have two cats.', "We're down to one cat since Pepper died in the spring.", 'supersede', 0.51),
    pytest.param('Pax', 'My phone number ends in 4471.', 'New number, by the way: it ends in 9902 now.', 'supersede', 0.47, marks=MISS),  # read as none
    ('Quy', "I'm on the night shift.", 'I got moved to the day shift, finally sleeping normal hours.', 'supersede', 0.62),
    pytest.param('Ria', "I go to St. Mark's church.", "We've joined a different parish, St. Anne's, closer to home.", 'supersede', 0.54, marks=MISS),  # read as none
    pytest.param('Sid', 'My doctor is Dr. Patel.', 'I switched GPs, Dr. Okafor sees me now.', 'supersede', 0.31, marks=MISS),  # read as none
    pytest.param('Tess', "I don't drink coffee.", "I've become a total coffee addict this year, three cups a day.", 'supersede', 0.6, marks=MISS),  # read as none
    pytest.param('Uri', 'My email is uri@old.com.', 'Please use uri@new.org from now on, the old address is closed.', 'supersede', 0.54, marks=MISS),  # read as none
    ('Vera', "I'm engaged to Paul.", 'Paul and I called off the engagement.', 'supersede', 0.71),
    pytest.param('Walt', "I'm 34.", 'Just turned 35 last week!', 'supersede', 0.64, marks=MISS),  # read as none
    ('Xena', "I'm a nurse at City Hospital.", 'I retired from nursing in March.', 'supersede', 0.6),
    pytest.param('Yara', 'I take the 7:15 train.', "They scrapped the 7:15, so it's the 6:50 for me now.", 'supersede', 0.48, marks=MISS),  # read as none
    pytest.param('Zack', 'My dog is a puppy.', 'Rex is a grown dog now, three years old.', 'supersede', 0.36, marks=MISS),  # read as none
    ('Abe', 'I work at Google.', 'Google announced layoffs today, scary times, but my team is fine.', 'none', 0.38),
    ('Bea', 'I live in Lyon.', 'We spent the weekend in Grenoble, lovely mountains.', 'none', 0.19),
    ('Cal', 'I drive a Honda Civic.', 'My neighbour just bought a Tesla.', 'none', 0.45),
    ('Dana', "I'm allergic to penicillin.", 'Had to remind the new dentist about my penicillin allergy.', 'none', 0.72),
    ('Gia', 'My favourite band is Blur.', "Pulp's new album is decent, but Blur is still my favourite.", 'none', 0.67),
    ('Ida', 'I take 20 mg of the medication daily.', "The doctor asked if I'd consider 40 mg, I said no.", 'none', 0.61),
    ('Joe', "I'm a Chelsea fan.", "Arsenal played well today, I'll give them that.", 'none', 0.49),
    ('Leo', "I'm vegetarian.", 'My partner started eating chicken again.', 'none', 0.39),
    ('Mae', 'I use Spotify.', 'Apple Music has some nice playlists, my sister says.', 'none', 0.58),
    ('Ora', 'I have two cats.', 'One of my cats knocked over a plant today.', 'none', 0.5),
    ('Walt', "I'm 34.", 'My brother just turned 35!', 'none', 0.54),
    ('Zack', 'My dog is a puppy.', 'The puppy chewed through another shoe.', 'none', 0.51),
    # a mixed check batch written after the rule was frozen for it: old rule 24/40, new 29/40 when
    # first run; then looked at and used (own data, not a held-out figure)
    ('Amara', 'I work as a paralegal at Finch & Co.', "I resigned from Finch & Co. and I'm clerking for a judge now.", 'supersede', 0.62),
    ('Basil', 'I live in a studio in Brooklyn.', 'We moved out of the Brooklyn studio; we rent a two-bed in Queens now.', 'supersede', 0.69),
    ('Cora', 'My car is a blue Fiat Panda.', "The Panda's gone, sold it to my cousin. I cycle everywhere now.", 'supersede', 0.57),
    ('Dex', "I'm lactose intolerant.", "Turns out I'm not lactose intolerant after all, the new test came back clean.", 'supersede', 0.76),
    ('Elle', 'My handle is @elle_paints.', 'Changed my handle to @elle_studio, the old one is gone.', 'supersede', 0.65),
    ('Femi', 'I go to the gym on Cross Street.', 'I cancelled the Cross Street gym membership and signed up at the climbing wall.', 'supersede', 0.56),
    ('Gus', 'I take 50 mg of sertraline.', "They've lowered my dose to 25 mg since last month.", 'supersede', 0.57),
    ('Hela', 'I support Leeds United.', "I don't follow Leeds anymore, I've switched to rugby.", 'supersede', 0.7),
    ('Isak', 'My favourite food is ramen.', 'Honestly pho has replaced ramen as my favourite.', 'supersede', 0.59),
    ('Jin', "I'm a smoker.", "I quit smoking in January and haven't touched one since.", 'supersede', 0.51),
    ('Kira', 'I drink oat milk.', "No more oat milk for me, I'm on soy now.", 'supersede', 0.74),
    ('Lars', 'My team has 6 people.', 'After the reorg my team is down to 4 people.', 'supersede', 0.68),
    ('Mona', 'I buy most of my clothes new.', "I'm in the middle of switching to second-hand clothes, half the closet is thrifted now.", 'transition', 0.65),
    ('Nico', 'I read the news on paper.', "I'm gradually moving my news reading to the tablet, the paper only on Sundays so far.", 'transition', 0.44),
    ('Oda', 'I use Excel for budgeting.', "I'm partway through moving my budget from Excel into YNAB.", 'transition', 0.65),
    ('Pau', 'I eat a lot of sugar.', 'Cutting down on sugar bit by bit, down to one treat a day so far.', 'transition', 0.5),
    ('Quill', 'I work at the Leeds office.', "I'm transferring to the Manchester office, two more weeks in Leeds to go.", 'transition', 0.72),
    ('Rina', 'I play tennis.', "I'm slowly swapping tennis for padel, more padel every month.", 'transition', 0.47),
    ('Saul', 'My kids speak only English.', "My neighbour's kids are learning Spanish step by step.", 'none', 0.63),
    ('Tuva', 'I run 5 km a day.', "I'm building up towards 10 km a day, at 7 km so far.", 'transition', 0.61),
    ('Ulla', "I'm vegetarian.", 'The only exception is the odd fish taco on holiday.', 'scoped_exception', 0.28),
    ('Vik', 'I go to bed at 10.', "On weekends it's more like midnight.", 'scoped_exception', 0.45),
    ('Wren', 'I drink tea, not coffee.', "Before an early flight I'll have a coffee instead.", 'scoped_exception', 0.5),
    ('Xavi', 'I work from the office.', 'In August I work from home instead, the office is empty anyway.', 'scoped_exception', 0.54),
    ('Yoko', "I don't eat dessert.", "Birthdays excepted, I'm not a monster.", 'scoped_exception', 0.2),
    pytest.param('Zane', 'I walk to school with the kids.', 'When it snows we drive instead.', 'scoped_exception', 0.28, marks=MISS),  # read as none
    ('Abi', 'I wear glasses.', 'For swimming I switch to contacts.', 'scoped_exception', 0.41),
    pytest.param('Bo', 'I cook at home every night.', "Fridays are takeaway night though, that's our treat.", 'scoped_exception', 0.28, marks=MISS),  # read as none
    ('Amara', 'I work as a paralegal at Finch & Co.', 'Finch & Co. hired three new paralegals this week.', 'none', 0.77),
    ('Basil', 'I live in a studio in Brooklyn.', 'My friend moved to Queens, I might visit him.', 'none', 0.43),
    ('Cora', 'My car is a blue Fiat Panda.', "Should I sell the Panda? It's getting old.", 'none', 0.51),
    ('Dex', "I'm lactose intolerant.", 'Found a great lactose-free ice cream today!', 'none', 0.61),
    ('Femi', 'I go to the gym on Cross Street.', 'The gym on Cross Street is repainting the changing rooms.', 'none', 0.51),
    ('Gus', 'I take 50 mg of sertraline.', 'The pharmacist said 50 mg is a common dose.', 'none', 0.63),
    ('Isak', 'My favourite food is ramen.', 'Tried pho today, not bad, but ramen is still my number one.', 'none', 0.54),
    ('Jin', "I'm a smoker.", 'My brother quit smoking, good for him.', 'none', 0.49),
    ('Lars', 'My team has 6 people.', 'My team won the quarterly award, all 6 of us!', 'none', 0.49),
    ('Rina', 'I play tennis.', 'Tennis at 7 tomorrow, then brunch.', 'none', 0.56),
    ('Vik', 'I go to bed at 10.', 'Last night I went to bed at 1, terrible idea.', 'none', 0.56),
    ('Zane', 'I walk to school with the kids.', "The kids' school is closed on Monday for training.", 'none', 0.29),
]


# Session 11: four more batches of my own. Batch 5 (62: changes under way and supersessions in
# other verbs, near misses) was written first and read 32 right by the rule of c972df1, then used
# to build the readings; batch 6 (40) was written after them and read 23 by c972df1, 23 by the
# rule built on batch 5 (then used); batch 7 (40) was written as a check of 818e1b5 (batches 5
# and 6 built in): 19 right by c972df1, 21 by it (then used); batch 8 (11) is added detail said with a
# situation ("On Sundays I run 5 km along the river"), which the rule read as scopes, beside real
# scopes; batch 9 (40) was written as a check of a5fdb58 (batches 5-8 built in): 23 right
# by c972df1, 23 by it (then used); batch 10 (40) was written as a check of 9fcbd59 (batches 5-9
# built in): 23 right by c972df1, 23 by it; then used for one reading (a named subject acting on a
# thing of its own: "Zenit sold their best striker") and to undo one (an elided "Learning ..."
# subject, which read "Learning German is getting easier bit by bit" as a change). The figures
# are in docs/judge.md.
BATCH5 = [
    ('Aiko', 'I use Evernote for all my notes.', 'About a third of my notes have made it over to Obsidian; the rest are still in Evernote for now.', 'transition', 0.61),
    pytest.param('Bram', "I'm an accountant.", "I'm midway through retraining as a nurse, placements start in March.", 'transition', 0.26, marks=MISS),  # read as none
    ('Chidi', 'We heat the house with a gas boiler.', "The heat pump is half installed, so we're still on the gas boiler until the engineers finish.", 'transition', 0.57),
    ('Dagny', "I drink cow's milk.", "Easing off cow's milk and onto oat milk, maybe a week or two more until it's all oat.", 'transition', 0.48),
    ('Emeka', "I'm on 20 mg of prednisone.", 'Tapering the prednisone: week 3 of 6, at 10 mg now.', 'transition', 0.79),
    ('Farah', 'I work in the London office.', "I'm mid-relocation to the Dublin office, splitting my weeks between the two until the end of May.", 'transition', 0.49),
    ('Gideon', 'I play bass in a covers band.', "I'm gradually moving over to guitar in the band; our new bassist takes over fully by the summer.", 'transition', 0.62),
    ('Hiro', 'I write my code in Java.', "We're porting our codebase from Java to Kotlin file by file, about 40% done.", 'transition', 0.38),
    ('Isla', "I'm a night owl, usually asleep around 2.", "I've been nudging my bedtime earlier by fifteen minutes a week, currently at about 1 am.", 'transition', 0.51),
    pytest.param('Jora', 'We shop at the big Tesco.', "We've been shifting more of our shopping to the farmers' market, it's maybe half and half at the moment.", 'transition', 0.42, marks=MISS),  # read as none
    ('Kofi', "I'm a full-time freelancer.", "I've started a part-time contract with a studio and I'm winding my freelance clients down one by one.", 'transition', 0.63),
    ('Leni', 'My main instrument is piano.', 'Organ is slowly taking over from piano for me since I joined the church choir.', 'transition', 0.61),
    ('Mateo', 'I lift weights five days a week.', "I'm scaling back the lifting to make room for climbing; four days now, three from next month.", 'transition', 0.62),
    ('Noor', 'I keep my savings in a regular savings account.', "I'm moving my savings into index funds a chunk every month until it's all invested.", 'transition', 0.6),
    pytest.param('Oskar', 'I live in Malmö.', 'Half our furniture is in the new flat in Copenhagen and we sleep there most nights now; the Malmö lease ends in April.', 'transition', 0.54, marks=MISS),  # read as none
    ('Priya', 'I buy my lunch from the canteen.', 'These days I bring my lunch from home more often than not, working on making it every day.', 'transition', 0.59),
    ('Ravi', 'I mainly speak Hindi with my kids.', "We're mixing in more and more English with the kids since they started school.", 'transition', 0.46),
    ('Saoirse', 'I manage the Dublin branch.', "I'm handing the branch over to my deputy through the summer before I take the regional job.", 'transition', 0.52),
    ('Tomas', 'I run Windows on my laptop.', 'My laptop dual-boots now while I move to Linux for good.', 'transition', 0.41),
    pytest.param('Ugo', "I'm on the night shift at the depot.", "I'm on a rota that moves me onto days over the next six weeks.", 'transition', 0.3, marks=MISS),  # read as none
    ('Vera', 'I teach piano lessons in person.', "I'm moving my piano students online one family at a time, six of fourteen so far.", 'transition', 0.53),
    ('Wale', 'I drive a petrol car.', "We're a two-car household for a few months while we phase out the petrol car for the EV.", 'transition', 0.52),
    ('Xiomara', 'I read the paper edition of the Guardian.', "I'm weaning myself off the paper edition; I've got the app now and only buy the Saturday copy.", 'transition', 0.4),
    ('Yusuf', 'My courses are taught in Turkish.', 'My courses are switching to English one module at a time this year.', 'transition', 0.56),
    ('Zara', 'I weigh 90 kg.', "I'm at 84 kg now, six more to go to hit my target.", 'transition', 0.58),
    ('Aiko', 'I use Evernote for my notes.', 'Evernote is a thing of the past for me, everything lives in Obsidian.', 'supersede', 0.55),
    ('Bram', "I'm a vegetarian.", "I've gone back to eating meat after eight years.", 'supersede', 0.62),
    ('Chidi', 'My phone is an iPhone 12.', 'My new phone is a Pixel 8 and I love it.', 'supersede', 0.52),
    ('Dagny', 'We rent a flat in Bergen.', "Since the move we've been renting a house in Trondheim.", 'supersede', 0.62),
    ('Emeka', "I'm allergic to penicillin.", "Turns out I'm not allergic to penicillin after all, the test came back clear.", 'supersede', 0.78),
    ('Farah', 'My gym locker code is 4172.', 'Correction: the locker code is 4127, I mixed up the digits.', 'supersede', 0.78),
    ('Gideon', "I'm single.", 'Big news, Rosa and I are officially together!', 'supersede', 0.27),
    ('Hiro', 'I work at Sony.', 'Last Friday was my final day at Sony; on Monday I start at Nintendo.', 'supersede', 0.47),
    ('Isla', 'I do Pilates on Tuesdays.', "Pilates didn't stick, so Tuesdays are yoga now.", 'supersede', 0.8),
    ('Jora', 'My favourite band is Coldplay.', "I've outgrown Coldplay, honestly; Radiohead is my band these days.", 'supersede', 0.76),
    ('Kofi', 'I drive a Toyota Corolla.', 'We traded the Corolla in for a Kia EV6 last month.', 'supersede', 0.56),
    ('Leni', "I'm studying medicine.", "I dropped out of medicine and I'm doing a design degree now.", 'supersede', 0.51),
    ('Mateo', 'I coach the under-10s.', 'I stepped down as under-10s coach at the end of the season.', 'supersede', 0.77),
    ('Noor', "I'm a member of the climbing gym on Elm Street.", 'I let my Elm Street climbing membership lapse.', 'supersede', 0.72),
    ('Oskar', 'Our rent is 900 a month.', 'The landlord put our rent up to 975 from this month.', 'supersede', 0.7),
    ('Priya', "I'm on the keto diet.", "I'm off keto, it wasn't sustainable.", 'supersede', 0.7),
    ('Ravi', 'I use Gmail.', "I've moved everything over to Proton Mail and deleted the Gmail account.", 'supersede', 0.45),
    ('Saoirse', "I'm the treasurer of the book club.", 'Someone else has taken over as treasurer of the book club, I just read the books now.', 'supersede', 0.84),
    ('Tomas', 'I have a golden retriever named Bo.', 'We lost Bo in the spring; he was fourteen.', 'supersede', 0.25),
    ('Ugo', "I go to St. Mary's church.", "We've started attending Grace Fellowship instead of St. Mary's.", 'supersede', 0.58),
    ('Vera', 'My commute is 40 minutes.', "Since we moved, the commute's only 15 minutes.", 'supersede', 0.74),
    ('Wale', 'I work four days a week.', "I'm back to five days a week since the promotion.", 'supersede', 0.46),
    ('Xiomara', "I'm learning the cello.", 'I put the cello down for good last year.', 'supersede', 0.75),
    ('Yusuf', 'I sleep on the sofa bed.', 'Finally got a proper bed, so no more sofa bed!', 'supersede', 0.57),
    ('Zara', 'My manager is Helen.', 'Helen left, and my new manager is Dev.', 'supersede', 0.72),
    ('Aiko', 'I use Obsidian for my notes.', 'Do you think Notion is better than Obsidian?', 'none', 0.54),
    ('Bram', "I'm an accountant.", 'My brother-in-law is retraining as a nurse.', 'none', 0.22),
    ('Chidi', 'I drive a Corolla.', 'The Corolla is due for its service next week.', 'none', 0.6),
    ('Dagny', 'I drink oat milk.', "The shop was out of oat milk so I had cow's milk today.", 'none', 0.63),
    ('Emeka', 'I live in Lagos.', 'We might move to Abuja in a couple of years.', 'none', 0.36),
    ('Farah', "I'm a member of the gym on Elm Street.", 'The Elm Street gym is moving its classes to the new studio over the next few weeks.', 'none', 0.64),
    ('Gideon', 'I play guitar.', "I'm getting better at barre chords bit by bit.", 'none', 0.36),
    ('Hiro', 'I work at Nintendo.', 'Work at Nintendo has been crazy busy lately.', 'none', 0.71),
    ('Isla', 'I do yoga on Tuesdays.', 'Yoga on Tuesday was great, new teacher.', 'none', 0.71),
    ('Jora', 'My favourite band is Radiohead.', "Radiohead's new album is finally out!", 'none', 0.51),
    ('Kofi', "I'm vegetarian.", 'My partner has started eating less meat too, bit by bit.', 'none', 0.43),
    ('Leni', 'I weigh 84 kg.', 'My goal is still 78 kg, slow and steady.', 'none', 0.61),
]
BATCH6 = [
    ('Anouk', 'I take the car to work every day.', "Most days now I cycle in, and I'm hoping to sell the car by the autumn.", 'transition', 0.42),
    ('Birgit', 'I write everything in Word.', "I've been slowly getting the team onto Google Docs; a few stubborn files are still in Word.", 'transition', 0.47),
    ('Cosmo', 'I eat a lot of red meat.', "Cutting the red meat down week by week, it's down to twice a week for now.", 'transition', 0.56),
    pytest.param('Dov', 'I sleep with the TV on.', 'Trying a new thing where the TV goes off a little earlier every night, nearly there.', 'transition', 0.53, marks=MISS),  # read as none
    ('Elif', 'I work at the Istanbul office.', "The move to the Ankara office is happening in phases; I'm there three days a week at the moment.", 'transition', 0.6),
    ('Fenna', 'My son goes to nursery full-time.', "We're settling my son into school gradually, he's at nursery two mornings still.", 'transition', 0.76),
    pytest.param('Goran', "I'm a heavy drinker, honestly.", "I've been cutting back a lot, only weekends now and aiming for fully dry next month.", 'transition', 0.2, marks=MISS),  # read as none
    ('Hedda', 'I store my photos on an external drive.', "I'm halfway through uploading my photos from the external drive to the cloud.", 'transition', 0.7),
    ('Ilan', 'I pay rent to a landlord.', "We've exchanged on the flat and are moving in over the next fortnight, so the rent stops after this month.", 'transition', 0.49),
    ('Juno', 'I practise the trumpet.', "I'm easing into the French horn these months, the trumpet comes out less and less.", 'transition', 0.63),
    pytest.param('Kemal', 'I run my business alone.', "I'm bringing a partner into the business in stages, she takes a third of it this year.", 'transition', 0.35, marks=MISS),  # read as none
    ('Lotta', 'I feed the cat dry food.', "I'm mixing wet food into the cat's dry food, a spoon more each day until she's fully on wet.", 'transition', 0.76),
    pytest.param('Marek', 'I commute two hours each way.', 'Once the transfer goes through the commute will be twenty minutes; the paperwork is half done.', 'transition', 0.46, marks=MISS),  # read as none
    ('Nadia', 'I use an iPhone.', "I'm partly on Android now, the iPhone is still my work phone until IT sorts the new one.", 'transition', 0.47),
    ('Orla', 'I live in Galway.', "We've been Dubliners for about three months now, Galway feels like ages ago.", 'supersede', 0.65),
    ('Piet', 'I drink Coke every day.', 'I kicked the Coke habit over the summer.', 'supersede', 0.71),
    ('Quentin', 'I drive a Golf.', "The Golf went to my niece; I'm on an e-bike full-time now.", 'supersede', 0.6),
    ('Rosa', 'I work as a barista at Fika.', "I handed in my apron at Fika and I'm teaching English now.", 'supersede', 0.57),
    ('Stellan', 'My partner is Jonas.', 'Jonas and I went our separate ways in March.', 'supersede', 0.62),
    pytest.param('Thea', 'I weigh 70 kg.', 'The scale says 64 kg these days.', 'supersede', 0.53, marks=MISS),  # read as none
    ('Ulf', 'I play for the Rovers.', 'I signed for United in the summer, so no more Rovers for me.', 'supersede', 0.79),
    pytest.param('Vida', 'My hair is blonde.', "I went dark brown last month and I'm keeping it.", 'supersede', 0.39, marks=MISS),  # read as none
    ('Wim', "I'm a student at Leiden.", 'I graduated from Leiden in June and started work at ASML.', 'supersede', 0.79),
    ('Xena', 'I take the 8:10 bus.', 'These days I catch the 7:40 bus instead.', 'supersede', 0.75),
    pytest.param('Yorick', 'I have braces.', 'Braces came off on Friday, finally!', 'supersede', 0.69, marks=MISS),  # read as none
    ('Zofia', 'I volunteer at the food bank on Saturdays.', "I don't volunteer at the food bank any more since the baby arrived.", 'supersede', 0.66),
    ('Amara', 'We have a landline at home.', 'We got rid of the landline ages ago.', 'supersede', 0.72),
    ('Benno', 'My go-to takeaway is pizza.', 'Sushi has completely replaced pizza as my Friday takeaway.', 'supersede', 0.66),
    ('Cleo', 'I go to bed at 11.', "I'm winding down with a book before bed, best part of the day.", 'none', 0.37),
    ('Dario', 'I work at the bakery.', 'My new apron is bright orange, love it.', 'none', 0.24),
    ('Esme', 'I live in Leeds.', "Since the move to Leeds my mum's been visiting every weekend.", 'none', 0.63),
    ('Fritz', 'I drink coffee.', 'More often than not I take it with oat milk.', 'none', 0.31),
    ('Greta', 'I play the flute.', 'My daughter is easing into the flute too, slowly.', 'none', 0.63),
    ('Hugo', 'I run three times a week.', 'Back to running three times a week after the flu.', 'none', 0.67),
    ('Ingrid', 'I work four days a week.', 'My colleague is back to five days a week.', 'none', 0.59),
    ('Jasper', 'I use Spotify.', "Is Spotify's new interface as bad as everyone says?", 'none', 0.49),
    ('Kira', 'I teach yoga.', 'Week 3 of 6 of my teacher training retreat, exhausted but happy.', 'none', 0.41),
    ('Lars', 'I live in Oslo.', 'My last day at the Oslo conference was great.', 'none', 0.47),
    ('Mina', 'I eat vegan.', 'Phasing in a new recipe each week keeps it interesting.', 'none', 0.23),
    ('Noel', 'I have a cat named Pip.', "Pip's new favourite spot is the windowsill.", 'none', 0.51),
]
BATCH7 = [
    ('Aled', 'I listen to music on CDs.', "I'm ripping my CDs to a hard drive a shelf at a time, about half the collection is done.", 'transition', 0.46),
    pytest.param('Bea', 'I go to the office five days a week.', "We're moving to a hybrid setup in stages, three office days at the moment and two from January.", 'transition', 0.39, marks=MISS),  # read as none
    ('Caius', 'I take sleeping pills every night.', "I'm coming off the sleeping pills slowly, every other night for now.", 'transition', 0.79),
    ('Delphine', 'Our family speaks French at home.', "We're gradually bringing English into the house, the kids answer in English more and more.", 'transition', 0.51),
    ('Eero', 'I use a flip phone.', "I'm halfway into the smartphone life, the flip phone is still in my pocket for calls.", 'transition', 0.73),
    ('Fiona', 'I teach at Brookside Primary.', "I'm job-sharing at Brookside this term while I move across to the academy in September.", 'transition', 0.59),
    ('Gunnar', 'I drink two litres of cola a day.', "I'm replacing the cola with sparkling water bit by bit, down to half a litre.", 'transition', 0.57),
    ('Helka', 'I pay for everything in cash.', "I'm getting used to paying by card, only the market stalls still get cash.", 'transition', 0.51),
    ('Ishaan', 'I play in goal for the Sunday team.', "I'm slowly moving out of goal into midfield, a half in each position for now.", 'transition', 0.54),
    ('Joelle', 'My office is on the fourth floor.', "We're relocating floor by floor to the new building, my team goes in the second wave.", 'transition', 0.48),
    ('Kasper', 'I eat breakfast at 9.', "I'm shifting breakfast earlier each week, it's at 8:15 now, aiming for 7:30.", 'transition', 0.69),
    ('Liesel', 'I keep bees in two hives.', "I'm expanding to five hives over the next two seasons, three so far.", 'transition', 0.63),
    pytest.param('Mads', 'I ride a road bike.', 'Transitioning to gravel riding: the road bike only comes out on sunny Sundays now.', 'transition', 0.48, marks=MISS),  # read as none
    pytest.param('Nkechi', 'I read paperbacks.', 'The Kindle is slowly winning, a paperback only now and then.', 'transition', 0.49, marks=MISS),  # read as none
    ('Olek', "I work as a waiter at Luigi's.", "I've packed in the job at Luigi's and started as a sous chef at the Grange.", 'supersede', 0.72),
    ('Perla', 'I go to Zumba on Mondays.', 'Zumba fell off my schedule; Mondays are for the choir now.', 'supersede', 0.79),
    ('Quade', 'My car insurance is with Aviva.', "Aviva doubled the quote so I'm with Admiral from this month.", 'supersede', 0.46),
    ('Rhian', "I'm engaged to Tomos.", 'Tomos and I got married in the spring!', 'supersede', 0.84),
    pytest.param('Sten', 'My username is sten_the_great.', 'I go by sten.k everywhere now, the old handle is gone.', 'supersede', 0.36, marks=MISS),  # read as none
    ('Tuuli', 'I rent a room in a shared house.', 'We finally bought our own place and left the shared house behind.', 'supersede', 0.69),
    pytest.param('Uriel', 'I take insulin twice a day.', 'My diabetes nurse moved me onto a pump, no more injections.', 'supersede', 0.46, marks=MISS),  # read as none
    pytest.param('Vesna', 'I have a beard.', 'Shaved the beard off for the wedding and kept it that way.', 'supersede', 0.42, marks=MISS),  # read as none
    ('Wren', "I'm a Catholic.", 'I converted to Judaism last year.', 'supersede', 0.45),
    pytest.param('Xavi', 'I support Valencia.', "Since my kids got into it we're a Villarreal household now.", 'supersede', 0.24, marks=MISS),  # read as none
    pytest.param('Yasmin', 'I sleep eight hours a night.', 'With the newborn it is more like four hours a night these days.', 'supersede', 0.4, marks=MISS),  # read as none
    ('Zeno', 'I swim at the Leisure Centre pool.', 'The Leisure Centre pool closed for good, so I swim in the lake now.', 'supersede', 0.74),
    ('Agnes', 'I knit scarves for charity.', 'The charity scarves are winding down, I make blankets instead now.', 'supersede', 0.75),
    ('Boris', 'My salary is 40k.', 'After the raise I make 46k.', 'supersede', 0.68),
    ('Cerys', 'I walk the dog at 6.', 'The dog walk at 6 was lovely in the mist this morning.', 'none', 0.65),
    ('Dmitri', 'I drive a Skoda.', 'My Skoda needs new tyres, any tips?', 'none', 0.45),
    ('Edda', 'I work nights.', 'My husband is slowly moving to day shifts.', 'none', 0.36),
    ('Faisal', 'I live in Manchester.', 'Since the move to Manchester I have joined a running club.', 'none', 0.61),
    ('Gwen', 'I drink tea.', 'Halfway through my tea and already thinking of the next one.', 'none', 0.54),
    pytest.param('Hamid', 'I use Linux.', 'Switched my desktop wallpaper to a photo of the Alps, looks great on Linux.', 'none', 0.36, marks=MISS),  # read as supersede
    ('Ilse', 'I do yoga every morning.', 'My yoga teacher is moving to Berlin next year, sad.', 'none', 0.41),
    ('Jakub', 'I study engineering.', 'Engineering exams are over for the term, phew.', 'none', 0.53),
    ('Kalani', 'I surf every weekend.', 'Were the waves good for you on Sunday? They were flat for me.', 'none', 0.39),
    ('Lorna', 'I weigh 65 kg.', 'The scale at the gym says 65 kg, same as mine at home.', 'none', 0.61),
    ('Milos', 'I cook dinner every night.', "Dinner tonight is my grandmother's goulash, cooking it slowly for hours.", 'none', 0.53),
    ('Nell', 'My partner is Sam.', 'Sam and I are going to Lisbon next week.', 'none', 0.47),
]
BATCH8 = [
    ('Abe', 'I drink coffee.', 'In the mornings I drink coffee with my partner on the balcony.', 'none', 0.68),
    ('Bex', 'I run 5 km.', 'On Sundays I run 5 km along the river with my dog.', 'none', 0.61),
    ('Cal', 'I cycle to work.', 'On rainy days I still cycle to work, with waterproofs though.', 'none', 0.54),
    ('Dot', 'I play the piano.', 'At Christmas I play the piano for the whole family, carols mostly.', 'none', 0.62),
    ('Eli', 'I take the bus to school.', 'On school days I take the bus with my little brother.', 'none', 0.79),
    ('Fae', 'I swim twice a week.', 'In the summer I swim twice a week in the sea rather than the pool.', 'none', 0.86),
    ('Guy', 'I read before bed.', 'Weekends I read before bed for hours, though, since there is no alarm.', 'none', 0.63),
    ('Hal', 'I go to bed around 11.', 'On Fridays I stay up till 1.', 'scoped_exception', 0.52),
    ('Jem', 'I drink coffee.', 'In the evenings I drink herbal tea instead.', 'scoped_exception', 0.51),
    ('Kip', 'I run 5 km.', 'On Sundays I do 10 km instead.', 'scoped_exception', 0.6),
    ('Lia', 'I work from the office.', 'On Fridays I work from home instead.', 'scoped_exception', 0.58),
]
BATCH9 = [
    pytest.param('Arno', 'i take the tube to work', 'been walking to work more n more, tube maybe twice a week now, hoping to ditch it by summer', 'transition', 0.57, marks=MISS),  # read as none
    pytest.param('Bryn', 'My pension is with Legal & General.', "I'm consolidating my pensions into Vanguard, two of the three have moved so far.", 'transition', 0.49, marks=MISS),  # read as supersede
    pytest.param('Chloe', 'I do all the school runs.', 'My husband is taking over the school runs gradually, I only do Fridays now.', 'transition', 0.65, marks=MISS),  # read as none
    ('Darius', 'I drink three energy drinks a day.', 'Cutting the energy drinks: one a day this week, none from next week hopefully.', 'transition', 0.72),
    ('Esra', 'We use paper timesheets at the clinic.', 'The clinic is halfway through rolling out the new digital timesheets; my ward switches next month.', 'transition', 0.65),
    ('Fitz', 'I work 60 hours a week.', "Trying to claw my life back, I'm down to about 50 hours and heading towards 40.", 'transition', 0.43),
    pytest.param('Gala', 'I speak to my mum in Russian.', "Mum and I have been drifting into English lately, it's maybe 50/50 now.", 'transition', 0.43, marks=MISS),  # read as none
    ('Hakon', 'I keep my files on Dropbox.', 'Still shifting stuff from Dropbox over to iCloud, the photos are done, documents next.', 'transition', 0.51),
    pytest.param('Irma', 'I am a smoker.', 'Day 40 on the vape instead of cigarettes, the odd one at parties still.', 'transition', 0.35, marks=MISS),  # read as none
    pytest.param('Jules', 'My band rehearses at the Barn.', "We're moving rehearsals over to Kat's garage, a couple more sessions at the Barn first.", 'transition', 0.54, marks=MISS),  # read as none
    pytest.param('Kenji', 'I eat out most nights.', 'Learning to cook properly, so eating out is down to weekends for now, working on those too.', 'transition', 0.52, marks=MISS),  # read as none
    ('Lucia', 'I manage the sales team.', "I'm in my last month managing sales, handing my reports over to Priya one at a time.", 'transition', 0.64),
    ('Marlon', 'I drive a diesel van for work.', 'Got rid of the diesel van, the company gave me an electric one.', 'supersede', 0.7),
    ('Nessa', 'I live with my boyfriend Ken.', "Ken and I broke up, I'm back at my parents' for now.", 'supersede', 0.65),
    ('Otto', 'My favourite podcast is Serial.', "Honestly I can't stand Serial any more, it's all about Hardcore History for me.", 'supersede', 0.54),
    ('Pim', 'I work at the council as a planner.', "Left the council in October, I'm freelance now.", 'supersede', 0.64),
    ('Rafa', 'I play five-a-side on Wednesdays.', "Wednesday five-a-side is done for me, knees gave out, it's swimming on Wednesdays now.", 'supersede', 0.53),
    pytest.param('Sigrid', 'I use a Samsung phone.', 'Finally caved and got an iPhone, the Samsung is in a drawer.', 'supersede', 0.54, marks=MISS),  # read as none
    ('Tobias', 'I have two cats.', "We're down to one cat since Misty passed.", 'supersede', 0.48),
    ('Ulla', 'My doctor is Dr. Reyes.', 'Dr. Reyes retired, so Dr. Lam is my doctor now.', 'supersede', 0.71),
    ('Viggo', 'I go running at 6 am.', '6 am runs are no longer happening, the baby wakes at 5, so I run at lunch.', 'supersede', 0.74),
    ('Wanda', 'I live in a flat on Elm Road.', "We've sold the Elm Road flat and bought a cottage in Devon.", 'supersede', 0.62),
    ('Ximena', 'I teach Spanish at the college.', "I don't teach at the college these days, I do private tutoring.", 'supersede', 0.57),
    ('Yves', 'My train pass is for zones 1-3.', 'Upgraded the train pass to zones 1-6 since I moved further out.', 'supersede', 0.8),
    ('Zuri', 'I am learning Italian.', 'Gave Italian a rest for good, Portuguese has my heart now.', 'supersede', 0.51),
    ('Anya', 'I am on the waiting list for a kidney.', "Had the transplant in May, so I'm off the waiting list!", 'supersede', 0.62),
    ('Bodhi', 'I surf every morning.', 'Flat days are the exception, then I do yoga instead.', 'scoped_exception', 0.33),
    ('Cass', 'I eat vegan.', "The only time I eat dairy is my nan's Sunday roast.", 'scoped_exception', 0.52),
    pytest.param('Dane', 'I work from home.', "During the quarter close I'm in the office every day, though.", 'scoped_exception', 0.37, marks=MISS),  # read as none
    ('Edie', 'I go to bed at 10.', "On match nights it's more like midnight.", 'scoped_exception', 0.41),
    ('Femke', 'I take the train to work.', 'The train to work was packed this morning, ugh.', 'none', 0.6),
    ('Gio', 'I drink three coffees a day.', 'My barista has learned my order, three coffees a day will do that.', 'none', 0.65),
    ('Hiro', 'I live in Osaka.', 'My cousin just moved out of Osaka to Tokyo.', 'none', 0.69),
    ('Ines', 'I play chess online.', 'Are you still playing chess online or did you give up?', 'none', 0.75),
    pytest.param('Jack', 'I manage the sales team.', "The sales team is slowly moving to the new CRM, which I'm leading.", 'none', 0.54, marks=MISS),  # read as transition
    ('Kora', 'I have a dog named Bear.', 'Bear is slowly getting used to the new harness.', 'none', 0.44),
    ('Luka', 'I am vegetarian.', 'Vegetarian for five years now and never looked back.', 'none', 0.67),
    ('Maeve', 'I run 30 km a week.', 'Ran 30 km this week again, legs are happy.', 'none', 0.68),
    ('Nils', 'I work at Ikea.', 'Work at Ikea is moving me to a new department next month, same store.', 'none', 0.72),
    ('Olga', 'I cycle to work.', "I'm thinking of switching to an e-bike for the commute at some point.", 'none', 0.3),
]
BATCH10 = [
    pytest.param('Adaeze', 'I take the night bus home.', "I've been getting lifts home from a colleague most nights, the night bus is the backup now.", 'transition', 0.68, marks=MISS),  # read as none
    pytest.param('Bjorn', 'I rent a storage unit for my stuff.', 'Clearing out the storage unit box by box, should be empty by March.', 'transition', 0.39, marks=MISS),  # read as none
    pytest.param('Celine', 'I get paid monthly.', 'Payroll is moving everyone to fortnightly pay, my first fortnightly payslip comes next week.', 'transition', 0.53, marks=MISS),  # read as none
    pytest.param('Dawit', 'I speak Amharic at work.', 'More and more of my meetings are in English since the merger.', 'transition', 0.4, marks=MISS),  # read as none
    ('Elke', 'I eat meat every day.', "I'm doing meat-free weekdays now and slowly extending it to weekends.", 'transition', 0.61),
    ('Florin', 'I work as a plumber.', "I'm retraining as an electrician in the evenings, still plumbing by day until I qualify.", 'transition', 0.66),
    pytest.param('Greer', 'I live in Bristol.', "We're in the middle of the move to Bath, the kids start school there next week.", 'transition', 0.3, marks=MISS),  # read as none
    pytest.param('Hamza', 'I take 40 mg of omeprazole.', 'The GP is stepping my omeprazole down, 20 mg for the next month and then off.', 'transition', 0.79, marks=MISS),  # read as none
    ('Isolde', 'I do my banking at the branch.', "I'm slowly moving my banking onto the app, the branch only for the odd cheque.", 'transition', 0.66),
    ('Jarrah', 'I use Photoshop for editing.', 'Halfway through switching my editing to Affinity, the old Photoshop files still need converting.', 'transition', 0.49),
    pytest.param('Kiri', 'I sleep in on weekends.', 'Trying to get up at 8 on weekends too, managed it two weekends out of four so far.', 'transition', 0.57, marks=MISS),  # read as none
    ('Lennart', 'I commute by ferry.', 'The bridge opened, so I drive across now, no more ferry.', 'supersede', 0.65),
    ('Mirela', 'My maiden name is Popescu.', "I've taken my husband's name, Ionescu, since the wedding.", 'supersede', 0.45),
    pytest.param('Nando', 'I work the morning shift at the warehouse.', "I'm on lates at the warehouse now, 2 till 10.", 'supersede', 0.5, marks=MISS),  # read as none
    ('Oona', 'I have a Fitbit.', 'Swapped the Fitbit for an Apple Watch at Christmas.', 'supersede', 0.72),
    pytest.param('Piers', 'I am 5 years sober.', 'Six years sober as of yesterday!', 'supersede', 0.68, marks=MISS),  # read as none
    ('Quilla', 'I go to Bikram yoga.', "I quit Bikram, the heat was too much; I'm doing regular hatha now.", 'supersede', 0.46),
    ('Rohan', 'My office is in Canary Wharf.', "The firm moved us to King's Cross, so that's my office now.", 'supersede', 0.41),
    ('Saskia', 'I am a member of the Green Party.', 'I cancelled my Green Party membership after the vote.', 'supersede', 0.75),
    ('Teodor', 'I run a small bakery.', "We closed the bakery in the summer; I'm baking from home for friends only.", 'supersede', 0.67),
    ('Uma', 'I wear contact lenses.', 'Had laser surgery in April, no more contacts.', 'supersede', 0.39),
    pytest.param('Vito', 'My go-to coffee order is a flat white.', "It's an oat cortado every time these days, flat whites feel too big.", 'supersede', 0.55, marks=MISS),  # read as none
    pytest.param('Wilma', 'I am on maternity leave.', 'Back at work since Monday, three days a week.', 'supersede', 0.32, marks=MISS),  # read as none
    pytest.param('Xander', 'I live alone.', 'My girlfriend moved in with me last month.', 'supersede', 0.24, marks=MISS),  # read as none
    ('Yuki', 'I play the shamisen.', "Gave the shamisen away to my niece, I don't play anymore.", 'supersede', 0.77),
    ('Zora', 'I walk to work.', 'When it pours I take the bus instead.', 'scoped_exception', 0.32),
    ('Aurel', 'I never drink on weeknights.', 'Friday drinks with the team are the exception.', 'scoped_exception', 0.5),
    pytest.param('Britt', 'I do my shopping on Saturdays.', 'Around Christmas I shop midweek instead, the crowds are awful.', 'scoped_exception', 0.54, marks=MISS),  # read as none
    ('Cato', 'I take the stairs at work.', 'The stairs were closed today so I took the lift.', 'none', 0.6),
    ('Dilys', 'I live in Cardiff.', 'My daughter is slowly moving her things to her new flat in Cardiff.', 'none', 0.35),
    ('Emrys', 'I drive an Audi.', "The Audi's been in the garage all week, so annoying.", 'none', 0.58),
    ('Fatou', 'I teach maths at Greenfield High.', 'Greenfield High is switching to a four-day week next year, apparently.', 'none', 0.38),
    ('Gorm', 'I swim at 7 every morning.', 'Swam at 7 again this morning, freezing!', 'none', 0.69),
    ('Hester', 'I am learning German.', 'Learning German is getting easier bit by bit.', 'none', 0.66),
    ('Ilya', 'I support Zenit.', "Zenit sold their best striker, we're all gutted.", 'none', 0.52),
    ('Jonna', 'I work at the library.', 'Is the library still hiring, do you know?', 'none', 0.62),
    ('Kwame', 'I have two kids.', 'The kids are finally moving up to the big school in September.', 'none', 0.16),
    ('Leif', 'I cycle 100 km a week.', "Might cut back to 80 km a week in winter, we'll see.", 'none', 0.48),
    pytest.param('Mona', 'I take the 8:05 train.', 'The 8:05 was cancelled again, I got the 8:35.', 'none', 0.52, marks=MISS),  # read as supersede
    ('Nuno', 'My favourite band is Muse.', "Muse are touring again, can't wait!", 'none', 0.62),
]


def _action(speaker: str, old: str, new: str, a: float) -> str:
    o = Record(id="o", namespace="t", text=old, speaker=speaker)
    n = Record(id="n", namespace="t", text=new, speaker=speaker)
    return fallback_verdict(o, n, GateScore(a=a, b=None, d=None, escalate=True), why="test").action


@pytest.mark.parametrize("speaker,old,new,expected,a", PAIRS + BATCH5 + BATCH6 + BATCH7 + BATCH8 + BATCH9 + BATCH10)
def test_rule_reads_changes_under_way_and_scopes(speaker: str, old: str, new: str, expected: str, a: float) -> None:
    assert _action(speaker, old, new, a) == expected


def test_aspect_doctests() -> None:
    assert doctest.testmod(atma.aspect).failed == 0


@pytest.mark.parametrize("sentence", [
    "I'm cutting down on the weights, three days a week so far.",
    "We're shifting dinner earlier bit by bit, it's at 8 now and we want 7.",
    "I'm starting to switch from violin to viola.",
    "I'm working out my notice at the bakery, two more weeks to go.",
])
def test_under_way_finds_a_change_not_finished(sentence: str) -> None:
    assert under_way(sentence)


@pytest.mark.parametrize("sentence", [
    "I switched to decaf and so far it's great.",   # done: "so far" tells how it goes
    "We're moving to Austin next week.",            # a plan with a date, nothing under way yet
    "I've started a new painting, slowly.",         # no change word
    "So far the move has been smooth.",
])
def test_under_way_ignores_done_changes_and_other_progress(sentence: str) -> None:
    assert not under_way(sentence)


@pytest.mark.parametrize("sentence,cue", [
    ("Birthdays are my cheat days, cake included.", "exception"),
    ("Fridays are the exception, I clear my inbox in the afternoon.", "exception"),
    ("During crunch weeks it's more like five hours a night.", "situation"),
    ("When I'm on call it stays on loud.", ""),  # a when-clause without a contrast word: talk is full of them
    ("When the roads are icy I take the tram instead.", "situation"),
    ("I went to the market on Fridays.", ""),
    ("The weather was lovely in July.", ""),
])
def test_scope_cue(sentence: str, cue: str) -> None:
    assert scope_cue(sentence) == cue


def test_someone_elses_change_under_way_changes_nothing() -> None:
    # "is" between the other person and the change word: was read as the speaker's own transition
    assert _action("Ines", "I eat meat most days.", "My sister is slowly going vegetarian.", 0.47) == "none"
