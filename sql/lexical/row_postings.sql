-- How many posting rows a repository has (those its blocks do not hold).
SELECT count(*) AS n FROM lexical_postings WHERE repository_id = %(repo)s
